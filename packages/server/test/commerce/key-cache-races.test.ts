// The commerce key cache's guarantee, "once a revoke has returned, no instance on the database
// accepts the key", attacked where a request is in flight on another instance while the revoke
// runs, and with many requests racing a revoke. Two instances over real HTTP on one database
// (SQLite file or PostgreSQL).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { commerceStores } from '../../src/commerce/db/stores.js';
import { holdLookupAfterRead } from '../helpers/hold-lookup.js';
import type { TestService } from '../helpers/start.js';
import {
  dashboardKey,
  expectRefused,
  keyCacheOf,
  merchants,
  revokeOnDashboard,
  twoCommerce,
  warm,
} from './key-cache-helpers.js';

describe('commerce key cache: requests in flight while the key is revoked elsewhere', () => {
  const two = twoCommerce();
  afterEach(() => vi.restoreAllMocks());

  it('a lookup that read the key before the revoke committed does not put it in the cache after', async () => {
    const { a, b } = two;
    // A key never used: its first request also stamps last_used_at (a second write, a second put).
    const { key, id } = await dashboardKey(a);
    await keyCacheOf(b).renew({ fresh: true });
    expect(keyCacheOf(b).trusted).toBe(true);

    // B's lookup reads the row while the key is live, and its answer is held until the revoke on
    // A has returned (a slow network, a busy pool): the answer predates the revoke.
    const { read, release } = holdLookupAfterRead(commerceStores(b.handle.db).apiKeys);
    const inFlight = merchants(b, key);
    await read;

    // The revoke returns once B has dropped its cache and acknowledged the new epoch.
    expect((await revokeOnDashboard(a, id)).status).toBe(200);
    release();
    // The request that was in flight before the revoke returned may finish as it began.
    expect((await inFlight).status).toBe(200);
    vi.restoreAllMocks();

    // From here on, no instance may accept the key: not from a cache the late answer filled.
    await expectRefused(b, key, 'B');
    await expectRefused(a, key, 'A');
  });

  it('requests racing a revoke on both instances: none that starts after the revoke returned is accepted', async () => {
    const { a, b } = two;
    for (let round = 0; round < 3; round++) {
      const { key, id } = await dashboardKey(a);
      await warm(a, key);
      await warm(b, key);
      let stop = false;
      // Keeps both instances busy with the key (warming and re-filling their caches) until the revoke is in.
      const hammer = async (svc: TestService) => {
        while (!stop) await merchants(svc, key);
      };
      const load = [hammer(a), hammer(b), hammer(a), hammer(b)];
      const revoked = await revokeOnDashboard(round % 2 ? b : a, id);
      expect(revoked.status).toBe(200);
      const after = await Promise.all(Array.from({ length: 8 }, (_, i) => merchants(i % 2 ? a : b, key)));
      stop = true;
      await Promise.all(load);
      expect(after.map((r) => r.status)).toEqual(Array(8).fill(401));
    }
  });
});
