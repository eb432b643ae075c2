// The commerce key cache on one PostgreSQL database, the way instances on several machines share
// it: an operator's TRUNCATE (PostgreSQL fires no row trigger for it; migration 16's statement
// trigger moves the epoch), and real processes of the built server with wall clocks that disagree
// (libfaketime; the monotonic clock is left alone) or paused with SIGSTOP while holding a lease.
import { describe, expect, it } from 'vitest';
import type { BuiltServer } from '../helpers/built-server.js';
import { runCliAsync } from '../helpers/cli.js';
import { asService, skewed, skewedBuiltPair } from '../helpers/skewed-pair.js';
import {
  dashboardKey,
  expectRefused,
  keyCacheOf,
  keyEpochOf,
  merchants,
  revokeOnDashboard,
  twoCommerce,
  warm,
} from './key-cache-helpers.js';

describe('commerce key epoch: TRUNCATE api_keys by hand', () => {
  const two = twoCommerce();

  it('moves the epoch, and no instance serves an emptied key from its cache after its next renewal', async () => {
    const { a, b } = two;
    const { key } = await dashboardKey(a);
    for (const svc of [a, b]) await warm(svc, key);
    const epoch = await keyEpochOf(a).read();
    await a.handle.db.run('TRUNCATE api_keys');
    expect(await keyEpochOf(a).read()).toBeGreaterThan(epoch);
    for (const svc of [a, b]) {
      // One renewal: what a hand edit is promised (docs/security.md).
      await keyCacheOf(svc).renew({ fresh: true });
      await expectRefused(svc, key, svc === a ? 'A' : 'B');
    }
  });
});

describe('commerce key cache across real processes: skewed wall clocks, a paused instance', () => {
  const pair = skewedBuiltPair('commerce', '.svc-commerce-key-epoch-');
  const { files } = pair;

  const warmBuilt = async (server: BuiltServer, key: string) => {
    for (let i = 0; i < 2; i++) expect((await merchants(asService(server), key)).status).toBe(200);
  };

  it('a revoke on A waits for B, whose wall clock is 90 s behind, and B refuses the key next', async () => {
    const { a, b } = pair;
    // Three rounds: where the revoke did not wait for B, B's own renewal (every 0.5 s) could still
    // land between the revoke and the request; it cannot in all three.
    for (let round = 0; round < 3; round++) {
      const { key, id } = await dashboardKey(asService(a));
      await warmBuilt(b, key);
      expect((await revokeOnDashboard(asService(a), id)).status).toBe(200);
      await expectRefused(asService(b), key, 'B');
    }
  });

  it('A paused (SIGSTOP) with the key cached: `keys revoke` from a clock 90 s ahead waits its lease out; A refuses the key on resuming', async () => {
    const { a, b } = pair;
    const { key, id } = await dashboardKey(asService(a));
    await warmBuilt(a, key);
    await warmBuilt(b, key);
    a.child.kill('SIGSTOP');
    try {
      const revoked = await runCliAsync(
        ['keys', 'revoke', id, '--service', 'commerce', '--json'],
        files.env(skewed('+90s')),
      );
      expect(revoked.status, revoked.stderr).toBe(0);
      // A could not acknowledge: the CLI waited its lease out and says whom it waited for.
      expect(revoked.stderr).toContain('did not acknowledge');
      await expectRefused(asService(b), key, 'B');
    } finally {
      a.child.kill('SIGCONT');
    }
    await expectRefused(asService(a), key, 'A');
  });
});
