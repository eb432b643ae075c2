// Eleventh pass (tidy): commerce purged silent instances' heartbeat rows (and old idempotency
// records) on every instance, every 10 minutes, without a lease: N instances ran the same DELETEs
// N times a period on the shared database. Content already ran its purges under its pass lease.
// Now one instance a period purges, under the lease `commerce:purge`, as content's media sweep.
// Since the clocks pass, a silent row goes once an instance has seen its stamp unchanged for
// SILENT_MS on its own monotonic clock, so it takes two of that instance's purges.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PURGE_LEASE } from '../../src/commerce/app.js';
import { SILENT_MS } from '../../src/platform/key-cache.js';
import { heartbeatStamps, heartbeatsSince, monotonicAhead } from '../helpers/monotonic.js';
import { handleOf, keyEpochOf, twoCommerce } from './key-cache-helpers.js';

const PURGE_EVERY_MS = 10 * 60_000;

describe('commerce: the heartbeat purge runs on one instance a period', () => {
  const two = twoCommerce();
  afterEach(() => vi.restoreAllMocks());

  it('both instances at once: one purges, the other does not until the period is over', async () => {
    const { a, b } = two;
    const db = a.handle.db;
    const instances = async () => [...(await heartbeatStamps(db)).keys()].sort();
    const bothPurge = () => Promise.all([handleOf(a).purge(), handleOf(b).purge()]);
    // Each instance writes its first heartbeat as its key cache starts, which a loaded machine
    // may not have done yet when the test begins (seen in CI): wait for both rows.
    await vi.waitFor(async () => expect(await instances()).toHaveLength(2), {
      timeout: 10_000,
      interval: 50,
    });
    const live = await instances();
    // A period is longer than the silence that gets a row deleted, so two purges can tell.
    expect(PURGE_EVERY_MS).toBeGreaterThan(SILENT_MS);
    const monotonic = monotonicAhead();
    /** A period passes, on the wall clock and the monotonic one; the live instances beat. */
    const nextPeriod = async (wallMs = PURGE_EVERY_MS) => {
      const before = await heartbeatStamps(db);
      a.clock.advance(wallMs);
      monotonic.advance(PURGE_EVERY_MS);
      await heartbeatsSince(db, before, live);
    };
    // A crashed instance's row (kill -9 never removes it).
    await keyEpochOf(a).acknowledge('crashed-1', 0, db.dialect, 1);
    const first = await bothPurge();
    expect(first.filter(Boolean)).toHaveLength(1);
    const holder = await db.get<{ owner: string }>('SELECT owner FROM leases WHERE name = ?', [PURGE_LEASE]);
    expect(live).toContain(holder?.owner);

    // Within the period neither purges again.
    a.clock.advance(PURGE_EVERY_MS - 1_000);
    expect(await bothPurge()).toEqual([false, false]);
    let wallMs = 1_000;

    // One purge a period; the row goes once one instance has seen it twice, a period apart (by
    // the third period, whichever instances held the lease). Live rows stay throughout.
    let periods = 1;
    while ((await instances()).includes('crashed-1')) {
      expect(periods, 'the silent row outlived three purge periods').toBeLessThan(3);
      await nextPeriod(wallMs);
      wallMs = PURGE_EVERY_MS;
      expect((await bothPurge()).filter(Boolean)).toHaveLength(1);
      periods++;
    }
    expect(await instances()).toEqual(live);
  });
});
