// Ninth pass (outside attack on stop 30): the MCP key cache's guarantee, "once a revoke has
// returned, no instance on the database accepts the key", attacked where a call is in flight on
// another instance while the revoke runs. Two instances over real HTTP on one database (SQLite file
// or PostgreSQL). docs/security.md, "Ninth pass: outside attack on stop 30".
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import { ctxOf, listAgentsCall, makeKey, startTwoInstances } from '../content/mcp-helpers.js';
import { holdLookupAfterRead } from '../helpers/hold-lookup.js';
import { api } from '../helpers/start.js';

describe('MCP key cache: a call in flight while the key is revoked elsewhere', () => {
  const two = startTwoInstances({ seed: 'none' });
  afterEach(() => vi.restoreAllMocks());

  it('a lookup that read the key before the revoke committed does not put it in the cache after', async () => {
    const { a, b } = two;
    // A key never used: its first call also stamps last_used_at (a second write, a second put).
    const { key, id } = await makeKey(a, ['read']);
    await ctxOf(b).keyCache.renew({ fresh: true });
    expect(ctxOf(b).keyCache.trusted).toBe(true);

    // B's lookup reads the row while the key is live, and its answer is held until the revoke on
    // A has returned (a slow network, a busy pool): the answer predates the revoke.
    const { read, release } = holdLookupAfterRead(ctxOf(b).stores.apiKeys);
    const inFlight = listAgentsCall(b, key);
    await read;

    // The revoke returns once B has dropped its cache and acknowledged the new epoch.
    expect((await api(a.url, 'DELETE', `/v1/api-keys/${id}`)).status).toBe(200);
    release();
    // The call that was in flight before the revoke returned may finish as it began.
    expect((await inFlight).status).toBe(200);
    vi.restoreAllMocks();

    // From here on, no instance may accept the key: not from a cache the late answer filled.
    for (const svc of [b, a]) {
      const res = await listAgentsCall(svc, key);
      expect(res.status, `${svc === a ? 'A' : 'B'} accepted the revoked key`).toBe(401);
    }
  });

  it("the background pass deletes a crashed instance's row once it has been silent an hour, and keeps live ones", async () => {
    const { a, b } = two;
    const dialect = a.handle.db.dialect;
    // kill -9 leaves its row: the process never gets to remove it.
    await ctxOf(a).stores.keyEpoch.acknowledge('elsewhere#1/4242/inst_crashed', 0, dialect, 2 * 60 * 60);
    await ctxOf(a).stores.keyEpoch.acknowledge('elsewhere#1/4243/inst_recent', 0, dialect, 10 * 60);
    expect(await (a.handle as ContentHandle).backgroundPass()).toBe(true);
    const rows = await a.handle.db.all<{ instance: string }>('SELECT instance FROM key_epoch_instances');
    const instances = rows.map((r) => r.instance);
    expect(instances).not.toContain('elsewhere#1/4242/inst_crashed');
    expect(instances).toContain('elsewhere#1/4243/inst_recent');
    expect(instances).toContain(ctxOf(b).instanceId);
    await ctxOf(a).stores.keyEpoch.forget('elsewhere#1/4243/inst_recent');
  });
});
