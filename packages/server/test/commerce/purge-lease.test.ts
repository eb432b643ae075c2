// Eleventh pass (tidy): commerce purged old idempotency records (and silent instances' heartbeat
// rows) on every instance, every 10 minutes, without a lease: N instances ran the same DELETEs N
// times a period on the shared database. Now one instance a period purges, under the lease
// `commerce:purge`, as content's media sweep. Since the leases pass the lease runs on the
// database's clock, and silent rows are swept apart (revoke-after-crash.test.ts).
import { describe, expect, it, vi } from 'vitest';
import { PURGE_LEASE } from '../../src/commerce/app.js';
import { runOutLease } from '../helpers/leases.js';
import { heartbeatStamps } from '../helpers/monotonic.js';
import { handleOf, twoCommerce } from './key-cache-helpers.js';

describe('commerce: the purge runs on one instance a period', () => {
  const two = twoCommerce();

  it('both instances at once: one purges, the other does not until the period is over', async () => {
    const { a, b } = two;
    const db = a.handle.db;
    const bothPurge = () => Promise.all([handleOf(a).purge(), handleOf(b).purge()]);
    expect((await bothPurge()).filter(Boolean)).toHaveLength(1);
    const holder = await db.get<{ owner: string }>('SELECT owner FROM leases WHERE name = ?', [PURGE_LEASE]);
    // Each instance's name is on its heartbeat row, written as its key cache starts.
    await vi.waitFor(async () => expect([...(await heartbeatStamps(db)).keys()]).toContain(holder?.owner), {
      timeout: 10_000,
      interval: 50,
    });
    // Within the period neither purges again.
    expect(await bothPurge()).toEqual([false, false]);
    // The period is over (on the database's clock): one of them purges again.
    await runOutLease(db, PURGE_LEASE);
    expect((await bothPurge()).filter(Boolean)).toHaveLength(1);
  });
});
