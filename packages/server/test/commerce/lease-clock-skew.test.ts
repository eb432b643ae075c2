// Leases pass: a named lease's expiry was each instance's wall clock (its injected clock) judged by
// another instance's. A checkout's placement lease lasts 2 min: an instance whose clock ran 5 min
// ahead saw every other instance's placement as run out, took it over and placed the order again
// (recovery). Now the lease is written and judged on the database's clock (PostgreSQL) or the
// machine's monotonic one (SQLite), so no instance's clock takes part. Two instances on one
// database, each with its own clock, as two hosts: the holder dies mid-placement (its database
// handle is pulled, its process lives on, so nothing but the lease speaks for it) and the other
// runs recovery. Failed on the old code when the recovering instance's clock was ahead.
import { describe, expect, it } from 'vitest';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import { PLACEMENT_LEASE_MS, placementLease } from '../../src/commerce/services/checkouts.js';
import { ManualClock } from '../../src/platform/clock.js';
import { leasesStore } from '../../src/platform/db/leases-store.js';
import { runOutLease } from '../helpers/leases.js';
import { sameDatabase, startTestService, type TestService } from '../helpers/start.js';
import { ADDRESS, BUYER, makeKey, PROTOCOL, sandboxUser } from './helpers.js';

const SKEW_MS = 5 * 60_000;

/** The holder's and the other instance's clocks, `holderAheadMs` apart (negative: behind). */
async function pairWithSkew(holderAheadMs: number) {
  const real = Date.now();
  const holder = await startTestService('commerce', {
    clock: new ManualClock(new Date(real + holderAheadMs)),
  });
  let other: TestService;
  try {
    other = await startTestService('commerce', {
      dataDir: holder.dataDir,
      clock: new ManualClock(new Date(real)),
      config: sameDatabase(holder),
    });
  } catch (err) {
    await holder.close();
    throw err;
  }
  return { holder, other, close: () => other.close().then(() => holder.close()) };
}

/** The holder moves a checkout to `confirming` and dies inside the store call, holding the lease. */
async function placementHeldByDeadHolder(holder: TestService): Promise<string> {
  const key = await makeKey(holder, 'sandbox');
  const user = await sandboxUser(holder, key);
  const made = await user.call('POST', '/v1/checkouts', {
    product_url: `${PROTOCOL}/slow-order-skew-price-2000`,
    buyer: BUYER,
    shipping_address: ADDRESS,
  });
  expect(made.body.status).toBe('ready_to_confirm');
  const id = made.body.id as string;
  const db = holder.handle.db;
  const confirm = user.call('POST', `/v1/checkouts/${id}/confirm`, undefined, {
    'idempotency-key': 'k-skew',
  });
  const status = async () =>
    (await db.get<{ status: string }>('SELECT status FROM checkouts WHERE id = ?', [id]))?.status;
  while ((await status()) !== 'confirming') await new Promise((r) => setImmediate(r));
  void db.close();
  expect((await confirm).status).toBe(500);
  return id;
}

const statusOn = async (svc: TestService, id: string) =>
  (await svc.handle.db.get<{ status: string }>('SELECT status FROM checkouts WHERE id = ?', [id]))?.status;

describe('placement leases across instances whose clocks disagree by 5 minutes', () => {
  // The skew is larger than the lease, so the old code's comparison of clocks decides.
  expect(SKEW_MS).toBeGreaterThan(PLACEMENT_LEASE_MS);

  for (const [label, holderAheadMs] of [
    ['the holder runs 5 min ahead, the other on time', SKEW_MS],
    ['the holder runs on time, the other 5 min ahead', -SKEW_MS],
  ] as const)
    it(`${label}: the live lease is not taken; once it has run out, it is`, async () => {
      const { holder, other, close } = await pairWithSkew(holderAheadMs);
      try {
        const id = await placementHeldByDeadHolder(holder);
        const recover = (other.handle as CommerceServiceHandle).recover;
        // Recovery from any age, so the other instance's clock cannot hide the checkout.
        await recover(-2 * SKEW_MS);
        expect(await statusOn(other, id), 'the other instance took a live placement lease').toBe(
          'confirming',
        );
        // The lease's own end (on the database's clock) still frees it.
        await runOutLease(other.handle.db, placementLease(id));
        await recover(-2 * SKEW_MS);
        expect(['completed', 'failed']).toContain(await statusOn(other, id));
      } finally {
        await close();
      }
    });
});

describe('a lease end no take could have written', () => {
  it('is over: a holder whose monotonic clock was faked (SQLite) or a hand edit (PostgreSQL) does not hold it for ever', async () => {
    const svc = await startTestService('commerce');
    try {
      const db = svc.handle.db;
      const leases = leasesStore(db);
      const name = 'test:far-ahead';
      expect(await leases.take(name, 'another-host#1/1/inst_a', 60_000, db.dialect)).toBe(true);
      expect(await leases.take(name, 'another-host#1/2/inst_b', 60_000, db.dialect)).toBe(false);
      const row = await db.get<{ until: string }>('SELECT until FROM leases WHERE name = ?', [name]);
      // What libfaketime without FAKETIME_DONT_FAKE_MONOTONIC=1 makes a process write on SQLite:
      // its "monotonic" milliseconds are the (faked) wall clock's, decades past this machine's.
      const far =
        db.dialect === 'postgres'
          ? '9999-12-31T00:00:00.000Z'
          : `${row?.until.split(':')[0]}:${String(Date.now()).padStart(16, '0')}`;
      await db.run('UPDATE leases SET until = ? WHERE name = ?', [far, name]);
      expect(await leases.take(name, 'another-host#1/2/inst_b', 60_000, db.dialect)).toBe(true);
    } finally {
      await svc.close();
    }
  });
});
