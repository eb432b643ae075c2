import { describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import type { SqlDatabase, SqlExecutor } from '../../src/platform/db/sql.js';
import { databaseForFile } from '../helpers/file-database.js';
import { walRecordsOf } from '../helpers/wal-records.js';
import { checkoutUpdated, sandboxEndpoint } from './webhook-rows.js';

/**
 * Every attempt is leased first (`claimDue` writes `lease_until` and `lease_owner`). While an
 * index named a lease column (migration 012's `deliveries_pending_leased`), each lease was a
 * non-HOT update: a new entry in every index of `deliveries`, a third of what a delivery cost
 * PostgreSQL beside its outcome. Migration 017 drops it. Counted, not timed: PostgreSQL's own
 * per-transaction counters of updated and HOT-updated rows, read inside the claim's transaction.
 */
describe('a webhook lease on PostgreSQL', () => {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-hot-lease-');
  const at = '2026-01-01T00:00:00.000Z';
  const now = '2026-01-01T00:01:00.000Z';
  const leaseUntil = '2026-01-01T00:02:00.000Z';

  // The backend's counts not yet sent to the statistics (they may include an earlier transaction
  // of the same pool connection), so a claim is counted as the difference around it.
  const counts = async (tx: SqlExecutor) => {
    const row = await tx.get<{ updated: string; hot: string }>(
      `SELECT pg_stat_get_xact_tuples_updated('deliveries'::regclass) AS updated,
              pg_stat_get_xact_tuples_hot_updated('deliveries'::regclass) AS hot`,
    );
    return { updated: Number(row?.updated), hot: Number(row?.hot) };
  };

  // Each claim under an owner of its own, so its rows are told apart from the earlier claims'.
  const claimCounted = (db: SqlDatabase, perEndpoint: number, owner: string) =>
    db.transaction(async (tx) => {
      const before = await counts(tx);
      const { result: claimed, records } = await walRecordsOf(
        tx,
        'candidates AS MATERIALIZED',
        () => tx.all('SELECT id FROM deliveries WHERE lease_owner = ?', [owner]),
        (watched) =>
          commerceStores(watched).webhooks.claimDue(now, leaseUntil, owner, {
            limit: 100,
            perEndpoint,
            dialect: db.dialect,
          }),
      );
      const after = await counts(tx);
      return {
        claimed: claimed.length,
        updated: after.updated - before.updated,
        hot: after.hot - before.hot,
        // The lease statement's WAL records: one a row, the HOT update itself.
        wal: records.reduce((a, b) => a + b, 0),
      };
    });

  it('is a HOT update for every row it claims, and the endpoint limit still counts the leases', async () => {
    const { db } = opened;
    const s = commerceStores(db).webhooks;
    await s.insertEndpoint(sandboxEndpoint('we_1', 'https://hooks.example.com/1', at));
    for (let n = 0; n < 10; n++) {
      await s.insertEvent(checkoutUpdated(`evt_${n}`, at));
      await s.insertDeliveries([{ id: `dlv_${n}`, event_id: `evt_${n}`, endpoint_id: 'we_1' }], at);
    }

    expect(await claimCounted(db, 4, 'owner-1')).toEqual({ claimed: 4, updated: 4, hot: 4, wal: 4 });
    // The four leases above are in flight: the endpoint's limit of 6 leaves room for 2.
    expect(await claimCounted(db, 6, 'owner-2')).toEqual({ claimed: 2, updated: 2, hot: 2, wal: 2 });
    expect(await claimCounted(db, 6, 'owner-3')).toEqual({ claimed: 0, updated: 0, hot: 0, wal: 0 });
  });
});
