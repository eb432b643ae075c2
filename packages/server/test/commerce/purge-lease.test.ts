// Eleventh pass (tidy): commerce purged silent instances' heartbeat rows (and old idempotency
// records) on every instance, every 10 minutes, without a lease: N instances ran the same DELETEs
// N times a period on the shared database. Content already ran its purges under its pass lease.
// Now one instance a period purges, under the lease `commerce:purge`, as content's media sweep.
import { describe, expect, it, vi } from 'vitest';
import { PURGE_LEASE } from '../../src/commerce/app.js';
import { PURGE_SILENT_MS } from '../../src/platform/key-cache.js';
import type { TestService } from '../helpers/start.js';
import { handleOf, keyEpochOf, twoCommerce } from './key-cache-helpers.js';

const PURGE_EVERY_MS = 10 * 60_000;

describe('commerce: the heartbeat purge runs on one instance a period', () => {
  const two = twoCommerce();

  /** A heartbeat row of an instance that went silent twice as long ago as the purge waits. */
  const silent = (svc: TestService, instance: string) =>
    keyEpochOf(svc).acknowledge(instance, 0, svc.handle.db.dialect, (2 * PURGE_SILENT_MS) / 1000);
  const instances = async (svc: TestService) =>
    (
      await svc.handle.db.all<{ instance: string }>(
        'SELECT instance FROM key_epoch_instances ORDER BY instance',
      )
    ).map((r) => r.instance);
  const bothPurge = () => Promise.all([handleOf(two.a).purge(), handleOf(two.b).purge()]);

  it('both instances at once: one purges, the other does not until the period is over', async () => {
    const { a, b } = two;
    // Each instance writes its first heartbeat as its key cache starts, which a loaded machine
    // may not have done yet when the test begins (seen in CI): wait for both rows.
    await vi.waitFor(async () => expect(await instances(a)).toHaveLength(2), {
      timeout: 10_000,
      interval: 50,
    });
    const live = await instances(a);
    expect(live).toHaveLength(2);
    await silent(a, 'crashed-1');
    const first = await bothPurge();
    expect(first.filter(Boolean)).toHaveLength(1);
    expect(await instances(b)).toEqual(live);
    const holder = await a.handle.db.get<{ owner: string }>('SELECT owner FROM leases WHERE name = ?', [
      PURGE_LEASE,
    ]);
    expect(live).toContain(holder?.owner);

    // Within the period neither purges again: a row gone silent meanwhile stays until the next.
    await silent(b, 'crashed-2');
    a.clock.advance(PURGE_EVERY_MS - 1_000);
    expect(await bothPurge()).toEqual([false, false]);
    expect(await instances(a)).toEqual([...live, 'crashed-2'].sort());

    a.clock.advance(1_000);
    const next = await bothPurge();
    expect(next.filter(Boolean)).toHaveLength(1);
    expect(await instances(a)).toEqual(live);
  });
});
