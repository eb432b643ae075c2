// Leases pass: a crashed instance's heartbeat row was deleted only by commerce's purge, under a
// lease held ten minutes, so for up to ~30 min after an instance elsewhere died every revoke waited
// the full key lease (2.25 s) for it and logged a warning. Now every instance sweeps on its own
// beat and before each revoke: once an instance has seen the row silent for SILENT_MS on its
// monotonic clock, the next revoke deletes it instead of waiting again. Failed on the old code:
// the second revoke waited too (two warnings).
import { describe, expect, it, vi } from 'vitest';
import { SILENT_MS } from '../../src/platform/key-cache.js';
import { heartbeatStamps, heartbeatsSince, monotonicAhead } from '../helpers/monotonic.js';
import {
  dashboardKey,
  expectRefused,
  keyEpochOf,
  revokeOnDashboard,
  twoCommerceWatchingRevokes,
} from './key-cache-helpers.js';

/** What kill -9 leaves of an instance on another machine: its row, never updated again. */
const CRASHED = 'another-host#1/4242/inst_killed';

describe('commerce: a revoke after an instance elsewhere was killed', () => {
  const { two, waitedOut } = twoCommerceWatchingRevokes();

  it('waits for the dead row once; after SILENT_MS the next revoke (on either instance) does not', async () => {
    const { a, b } = two;
    const db = a.handle.db;
    const instances = async () => [...(await heartbeatStamps(db)).keys()].sort();
    await vi.waitFor(async () => expect(await instances()).toHaveLength(2), {
      timeout: 10_000,
      interval: 50,
    });
    const live = await instances();
    const epoch = await keyEpochOf(a).read();
    await keyEpochOf(a).acknowledge(CRASHED, epoch, db.dialect, 1);
    const monotonic = monotonicAhead();

    const first = await dashboardKey(a);
    expect((await revokeOnDashboard(a, first.id)).status).toBe(200);
    await expectRefused(b, first.key, 'B');
    expect(waitedOut().map((w) => w.instances)).toEqual([[CRASHED]]);

    // A minute passes on the monotonic clock; the live instances beat meanwhile, the dead one not.
    const before = await heartbeatStamps(db);
    monotonic.advance(SILENT_MS);
    await heartbeatsSince(db, before, live);

    for (const [svc, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const { id, key } = await dashboardKey(svc);
      expect((await revokeOnDashboard(svc, id)).status).toBe(200);
      await expectRefused(other, key, 'the other instance');
    }
    expect(waitedOut(), 'a revoke waited for the dead row again').toHaveLength(1);
    expect(await instances()).toEqual(live);
  });
});
