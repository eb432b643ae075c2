import { describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import type { Migration, SqlDatabase } from '../../src/platform/db/sql.js';
import { createTestPostgresDatabase, testEngine } from '../helpers/database.js';
import { databaseForFile } from '../helpers/file-database.js';
import { removeTempDataDir, tempDataDir } from '../helpers/start.js';
import { checkoutUpdated, sandboxEndpoint } from './webhook-rows.js';

/** The indexes on `deliveries` (not the primary key's), by name, on either engine. */
async function deliveryIndexes(db: SqlDatabase): Promise<string[]> {
  const rows =
    db.dialect === 'postgres'
      ? await db.all<{ name: string }>(
          `SELECT i.indexname AS name FROM pg_indexes i
            WHERE i.schemaname = current_schema() AND i.tablename = 'deliveries'
              AND i.indexname NOT IN (SELECT conname FROM pg_constraint WHERE contype IN ('p', 'u'))`,
        )
      : await db.all<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'deliveries' AND sql IS NOT NULL",
        );
  return rows.map((r) => r.name).sort();
}

/** What the claim, the outcome and the dashboard read: SQLite also counts leases by index. */
const expectedIndexes = (db: SqlDatabase) => [
  'deliveries_endpoint',
  'deliveries_event',
  'deliveries_pending_due',
  ...(db.dialect === 'postgres' ? [] : ['deliveries_pending_leased']),
];

/**
 * Every index on `deliveries` is written on each delivery's insert and outcome, and on the lease
 * too where an index names a lease column (no HOT update on PostgreSQL), so one that no query
 * reads is a cost each delivery pays for nothing. `deliveries_due` (migration 004) lost its last
 * reader when claims went per endpoint (migration 012); migration 015 drops it, after 004 made
 * it, on both engines. Migration 017 drops `deliveries_pending_leased` (012) on PostgreSQL, so
 * that no index names the lease's columns (webhook-hot-lease.postgres.test.ts).
 */
describe('the indexes on webhook deliveries', () => {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-delivery-indexes-');

  it('are the ones the claim, the outcome and the dashboard read, and no other', async () => {
    expect(await deliveryIndexes(opened.db)).toEqual(expectedIndexes(opened.db));
  });
});

/**
 * Migration 017 on a database that already has deliveries, one of them leased under 016's
 * schema: the lease still counts against its endpoint's limit after the migration (the count
 * reads another index now), and the rest are claimed.
 */
describe('migration 017 on a database with deliveries', () => {
  it('keeps counting a lease taken before it', async () => {
    const dir = tempDataDir('svc-delivery-indexes-017-');
    const pg = testEngine === 'postgres' ? await createTestPostgresDatabase() : undefined;
    const open = (migrations: readonly Migration[]) =>
      openServiceDatabase({ service: 'commerce', dataDir: dir, databaseUrl: pg?.url, migrations });
    const at = '2026-01-01T00:00:00.000Z';
    const claim = (db: SqlDatabase, now: string, perEndpoint: number) =>
      db.transaction((tx) =>
        commerceStores(tx).webhooks.claimDue(now, '2026-01-01T01:00:00.000Z', 'owner-1', {
          limit: 100,
          perEndpoint,
          dialect: db.dialect,
        }),
      );
    try {
      const before = await open(commerceMigrations.filter((m) => m.id < 17));
      const s = commerceStores(before).webhooks;
      await s.insertEndpoint(sandboxEndpoint('we_1', 'https://hooks.example.com/1', at));
      for (let n = 0; n < 5; n++) {
        await s.insertEvent(checkoutUpdated(`evt_${n}`, at));
        await s.insertDeliveries([{ id: `dlv_${n}`, event_id: `evt_${n}`, endpoint_id: 'we_1' }], at);
      }
      expect((await claim(before, '2026-01-01T00:00:01.000Z', 2)).map((d) => d.id)).toEqual([
        'dlv_0',
        'dlv_1',
      ]);
      await before.close();

      const after = await open(commerceMigrations);
      try {
        expect(await deliveryIndexes(after)).toEqual(expectedIndexes(after));
        // Two leases in flight from before the migration: a limit of 4 leaves room for 2.
        expect((await claim(after, '2026-01-01T00:00:02.000Z', 4)).map((d) => d.id)).toEqual([
          'dlv_2',
          'dlv_3',
        ]);
      } finally {
        await after.close();
      }
    } finally {
      await pg?.drop();
      removeTempDataDir(dir);
    }
  });
});
