// Ninth pass (outside attack on stop 30): an operator's SQL that empties `api_keys` must move the
// key epoch like any DELETE, or every instance keeps serving the removed keys from its cache for
// as long as it runs. On PostgreSQL, TRUNCATE fires no row trigger (SQLite has no TRUNCATE; its
// DELETE without WHERE fires them). Two instances over real HTTP on one PostgreSQL database.
import { describe, expect, it } from 'vitest';
import { ctxOf, listAgentsCall, makeKey, startTwoInstances } from '../content/mcp-helpers.js';

describe('key epoch: TRUNCATE api_keys by hand', () => {
  const two = startTwoInstances({ seed: 'none' });

  it('moves the epoch, and no instance serves an emptied key from its cache after its next renewal', async () => {
    const { a, b } = two;
    const { key } = await makeKey(a, ['read']);
    for (const svc of [a, b]) {
      await ctxOf(svc).keyCache.renew({ fresh: true });
      expect((await listAgentsCall(svc, key)).status).toBe(200);
    }
    const epoch = await ctxOf(a).stores.keyEpoch.read();
    await a.handle.db.run('TRUNCATE api_keys');
    for (const svc of [a, b]) {
      // One renewal: what a hand edit is promised (docs/security.md, "What it assumes").
      await ctxOf(svc).keyCache.renew({ fresh: true });
      expect((await listAgentsCall(svc, key)).status, 'an emptied key was served from a cache').toBe(401);
    }
    expect(await ctxOf(a).stores.keyEpoch.read()).toBeGreaterThan(epoch);
  });
});
