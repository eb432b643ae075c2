import { describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { databaseForFile } from '../helpers/file-database.js';

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

/**
 * Every index on `deliveries` is written on each delivery's insert, lease and outcome (on
 * PostgreSQL none of those is a HOT update), so one that no query reads is a cost each delivery
 * pays for nothing. `deliveries_due` (migration 004) lost its last reader when claims went per
 * endpoint (migration 012); migration 015 drops it, after 004 made it, on both engines.
 */
describe('the indexes on webhook deliveries', () => {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-delivery-indexes-');

  it('are the ones the claim, the outcome and the dashboard read, and no other', async () => {
    expect(await deliveryIndexes(opened.db)).toEqual([
      'deliveries_endpoint',
      'deliveries_event',
      'deliveries_pending_due',
      'deliveries_pending_leased',
    ]);
  });
});
