import { describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import { databaseForFile } from '../helpers/file-database.js';
import { walRecordsOf } from '../helpers/wal-records.js';
import { checkoutUpdated, sandboxEndpoint } from './webhook-rows.js';

/**
 * What a webhook claim writes on PostgreSQL, counted, not timed. A claim locks the endpoints it claims for, so two instances never count and fill the same
 * endpoint's slots at once. That lock was a row lock (`FOR NO KEY UPDATE`), which writes the
 * endpoint's row on every claim: its `xmax` set to the claimer, a WAL record and a dirty page, and
 * a MultiXact beside the API's foreign-key lock on the same row. It is now an advisory lock, which
 * writes nothing. Counted, not timed: the endpoint rows' `xmax` after claims, and the lock seen
 * from a second connection while the claim's transaction is open.
 */
describe('what a webhook claim writes on PostgreSQL', () => {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-claim-writes-');
  const at = '2026-01-01T00:00:00.000Z';
  const now = '2026-01-01T00:01:00.000Z';
  const leaseUntil = '2026-01-01T00:02:00.000Z';

  it('writes no endpoint row, and holds the endpoint until the claim commits', async () => {
    const { db } = opened;
    const s = commerceStores(db).webhooks;
    for (const w of ['we_1', 'we_2']) {
      await s.insertEndpoint(sandboxEndpoint(w, `https://hooks.example.com/${w}`, at));
      for (let n = 0; n < 3; n++) {
        await s.insertEvent(checkoutUpdated(`evt_${w}_${n}`, at));
        await s.insertDeliveries([{ id: `dlv_${w}_${n}`, event_id: `evt_${w}_${n}`, endpoint_id: w }], at);
      }
    }
    const other = await opened.another();
    const claimDue = (limit: number) =>
      db.transaction(async (tx) => {
        const got = await commerceStores(tx).webhooks.claimDue(now, leaseUntil, 'owner-1', {
          limit,
          perEndpoint: 2,
          dialect: db.dialect,
        });
        // Another connection sees the claimed endpoints as taken while this one is open.
        const held = await other.all<{ id: string; free: boolean }>(
          `SELECT id, pg_try_advisory_xact_lock(hashtextextended('svc webhook claim ' || id, 0)) AS free
             FROM webhook_endpoints ORDER BY id`,
        );
        return { claimed: got.map((d) => d.id).sort(), held };
      });

    // The API's inserts above left their foreign-key lock's mark (`xmax`) on the endpoint rows;
    // a claim must leave it as it is.
    const marks = () =>
      db.all<{ id: string; xmax: string }>(
        'SELECT id, xmax::text AS xmax FROM webhook_endpoints ORDER BY id',
      );
    const before = await marks();
    const first = await claimDue(10);
    expect(first.claimed).toEqual(['dlv_we_1_0', 'dlv_we_1_1', 'dlv_we_2_0', 'dlv_we_2_1']);
    expect(first.held).toEqual([
      { id: 'we_1', free: false },
      { id: 'we_2', free: false },
    ]);
    // Both endpoints are full (2 in flight each): locked and counted, nothing more claimed.
    expect((await claimDue(10)).claimed).toEqual([]);

    expect(await marks()).toEqual(before);
    // The lock ended with the claim's transaction.
    const after = await other.all<{ free: boolean }>(
      `SELECT pg_try_advisory_xact_lock(hashtextextended('svc webhook claim ' || id, 0)) AS free
         FROM webhook_endpoints ORDER BY id`,
    );
    expect(after).toEqual([{ free: true }, { free: true }]);
  });

  /**
   * Each claimed row was also locked (`FOR UPDATE SKIP LOCKED`) before its lease: a WAL record of
   * its own for every delivery, beside the lease's. The endpoint's lock already keeps other
   * claims away, so the lease alone is written: one WAL record a row (a HOT update, migration 17).
   */
  it('writes one WAL record for each row it leases', async () => {
    const { db } = opened;
    const s = commerceStores(db).webhooks;
    await s.insertEndpoint(sandboxEndpoint('we_wal', 'https://hooks.example.com/wal', at));
    for (let n = 0; n < 6; n++) {
      await s.insertEvent(checkoutUpdated(`evt_wal_${n}`, at));
      await s.insertDeliveries([{ id: `dlv_wal_${n}`, event_id: `evt_wal_${n}`, endpoint_id: 'we_wal' }], at);
    }
    // The lease statement as the store sends it, run under EXPLAIN ANALYZE for its WAL counts.
    const { result: claimed, records } = await db.transaction((tx) =>
      walRecordsOf(
        tx,
        'candidates AS MATERIALIZED',
        () => tx.all("SELECT id FROM deliveries WHERE lease_owner = 'owner-wal'"),
        (watched) =>
          commerceStores(watched).webhooks.claimDue(now, leaseUntil, 'owner-wal', {
            limit: 10,
            perEndpoint: 4,
            dialect: db.dialect,
            ids: Array.from({ length: 6 }, (_, n) => `dlv_wal_${n}`),
          }),
      ),
    );
    expect(claimed).toHaveLength(4);
    expect(records).toEqual([4]);
  });

  /**
   * With no row lock before the lease, a picked row another write changes meanwhile is checked
   * again by the lease's own WHERE. The threat: a delivery canceled (its endpoint removed), or
   * recorded by a late outcome, while the claim ran, leased and sent anyway.
   */
  it('leases no row that another write made not due while the claim ran', async () => {
    const { db } = opened;
    const s = commerceStores(db).webhooks;
    await s.insertEndpoint(sandboxEndpoint('we_race', 'https://hooks.example.com/race', at));
    const ids = ['dlv_race_0', 'dlv_race_1'];
    for (const [n, id] of ids.entries()) {
      await s.insertEvent(checkoutUpdated(`evt_race_${n}`, at));
      await s.insertDeliveries([{ id, event_id: `evt_race_${n}`, endpoint_id: 'we_race' }], at);
    }
    const canceler = await opened.another();
    const watcher = await opened.another();
    let cancelWritten!: () => void;
    const written = new Promise<void>((r) => {
      cancelWritten = r;
    });
    let commit!: () => void;
    const mayCommit = new Promise<void>((r) => {
      commit = r;
    });
    // The cancel is written but not committed while the claim runs: the claim's lease waits for it.
    const cancel = canceler.transaction(async (tx) => {
      await tx.run(
        "UPDATE deliveries SET status = 'canceled', next_attempt_at = NULL WHERE id = 'dlv_race_0'",
      );
      cancelWritten();
      await mayCommit;
    });
    await written;
    const claim = db.transaction((tx) =>
      commerceStores(tx).webhooks.claimDue(now, leaseUntil, 'owner-race', {
        limit: 10,
        perEndpoint: 4,
        dialect: db.dialect,
        ids,
      }),
    );
    // Committed only once the claim waits on the canceled row (a lock wait in this database).
    for (let waiting = 0; waiting === 0; await new Promise((r) => setTimeout(r, 20))) {
      const row = await watcher.get<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      waiting = Number(row?.n);
    }
    commit();
    await cancel;
    expect((await claim).map((d) => d.id)).toEqual(['dlv_race_1']);
    const rows = await db.all<{ id: string; status: string; lease_owner: string | null }>(
      "SELECT id, status, lease_owner FROM deliveries WHERE id IN ('dlv_race_0', 'dlv_race_1') ORDER BY id",
    );
    expect(rows).toEqual([
      { id: 'dlv_race_0', status: 'canceled', lease_owner: null },
      { id: 'dlv_race_1', status: 'pending', lease_owner: 'owner-race' },
    ]);
  });
});
