import { describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import type { SqlExecutor, SqlParams } from '../../src/platform/db/sql.js';
import { databaseForFile } from '../helpers/file-database.js';
import { checkoutUpdated, firstAttemptOk, sandboxEndpoint } from './webhook-rows.js';

/**
 * The dispatcher writes a batch of outcomes in one statement on PostgreSQL (`recordAttempts`).
 * The threat: a plan that reads all of `deliveries` for every batch. The table keeps every
 * delivery ever made, so such a plan costs more the longer a deployment runs, and it ran for
 * every few deliveries sent (it did: the planner guessed 100 rows for the batch's
 * `jsonb_to_recordset` and hashed it against a scan of the whole table).
 */
describe('recording a batch of webhook outcomes on PostgreSQL', () => {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-outcome-plan-');

  it('finds the batch’s deliveries by primary key, not by reading the whole table', async () => {
    const { db } = opened;
    const at = '2026-01-01T00:00:00.000Z';
    const endpoints = Array.from({ length: 16 }, (_, i) => `we_${i}`);
    await db.transaction(async (tx) => {
      const s = commerceStores(tx).webhooks;
      for (const id of endpoints)
        await s.insertEndpoint(sandboxEndpoint(id, `https://hooks.example.com/${id}`, at));
      // 4,000 deliveries: a table past the size where a scan of it is cheaper than a few lookups.
      for (let n = 0; n < 250; n++) {
        await s.insertEvent(checkoutUpdated(`evt_${n}`, at));
        await s.insertDeliveries(
          endpoints.map((w) => ({ id: `dlv_${n}_${w}`, event_id: `evt_${n}`, endpoint_id: w })),
          at,
        );
      }
    });
    await db.run('ANALYZE deliveries');
    const now = '2026-01-01T00:01:00.000Z';
    const claimed = await db.transaction((tx) =>
      commerceStores(tx).webhooks.claimDue(now, '2026-01-01T00:02:00.000Z', 'owner-1', {
        limit: 8,
        perEndpoint: 4,
        dialect: 'postgres',
      }),
    );
    expect(claimed).toHaveLength(8);
    const outcomes = claimed.map((d) => firstAttemptOk(d.id, now));

    // The statement as the store sends it, planned with its own parameters.
    const sent: { sql: string; params?: SqlParams }[] = [];
    const recorded = await db.transaction((tx) => {
      const watched: SqlExecutor = {
        get: (sql, params) => tx.get(sql, params),
        run: (sql, params) => tx.run(sql, params),
        all: (sql, params) => {
          sent.push({ sql, ...(params ? { params } : {}) });
          return tx.all(sql, params);
        },
      };
      return commerceStores(watched).webhooks.recordAttempts(outcomes, 'postgres');
    });
    expect(recorded).toEqual(outcomes.map(() => true));
    expect(sent).toHaveLength(1);
    const [statement] = sent;
    const plan = (await db.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement?.sql}`, statement?.params))
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).not.toMatch(/Seq Scan on deliveries/);
    expect(plan).toMatch(/deliveries_pkey/);
  });
});
