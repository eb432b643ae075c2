import { describe, expect, it } from 'vitest';
import { TIME_ORDERED_SINCE } from '../../src/content/db/migrations/024-call-log-recent-by-id.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { mcpCallsStore, type NewMcpCall } from '../../src/content/db/stores/misc-stores.js';
import { MAX_BATCH } from '../../src/content/services/mcp-call-log.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { callRow, newCall } from '../helpers/call-log-rows.js';
import { databaseForFile } from '../helpers/file-database.js';
import { walRecordsOf } from '../helpers/wal-records.js';

/**
 * What one call's entry costs the database, counted, not timed (issue 20). A call made since the
 * ids sort by time is a row and two index entries (the primary key, `mcp_calls_key`): migration
 * 024 took it out of `mcp_calls_created`, whose order its id already has. Counted per batch of
 * MAX_BATCH entries, as the log writes them: on SQLite the cells of each of the table's b-trees
 * (dbstat), on PostgreSQL the WAL records of the batch's INSERT (one for the row, one an index
 * entry). Before migration 024: 3 index entries a call, 4 WAL records.
 */
describe('one MCP call-log entry', () => {
  const opened = databaseForFile('content', contentMigrations, 'svc-call-log-entries-');
  const at = Date.parse(TIME_ORDERED_SINCE) + 3_600_000;
  const batch = (from: number): NewMcpCall[] =>
    Array.from({ length: MAX_BATCH }, (_, i) =>
      newCall(callRow({ at: at + from + i, tool: 'list_agents', key_id: `key_${i % 3}` })),
    );

  /** SQLite: entries in each index of mcp_calls (an index b-tree keeps entries in its inner pages too). */
  const indexEntries = async (db: SqlDatabase) => {
    const rows = await db.all<{ entries: number }>(
      `SELECT sum(ncell) AS entries FROM dbstat
        WHERE name IN (SELECT name FROM pragma_index_list('mcp_calls'))`,
    );
    return Number(rows[0]?.entries ?? 0);
  };

  it('is written to the table and two indexes', async () => {
    const { db } = opened;
    await mcpCallsStore(db).insertMany(batch(0)); // the b-trees past their first page
    if (db.dialect === 'sqlite') {
      const before = await indexEntries(db);
      await mcpCallsStore(db).insertMany(batch(MAX_BATCH));
      expect((await indexEntries(db)) - before).toBe(2 * MAX_BATCH);
    } else {
      const records = await db.transaction(async (tx) => {
        const counted = await walRecordsOf(
          tx,
          'INSERT INTO mcp_calls',
          () =>
            tx.all('SELECT id FROM mcp_calls WHERE created_at >= ?', [
              new Date(at + MAX_BATCH).toISOString(),
            ]),
          (watched) => mcpCallsStore(watched).insertMany(batch(MAX_BATCH)),
        );
        return counted.records;
      });
      // Three a row, and a few for the pages the batch starts (a split, a new leaf).
      expect(records).toHaveLength(1);
      expect(records[0]).toBeGreaterThanOrEqual(3 * MAX_BATCH);
      expect(records[0]).toBeLessThan(3 * MAX_BATCH + MAX_BATCH / 4);
    }
    const listed = await mcpCallsStore(db).list({}, 2 * MAX_BATCH);
    expect(listed.items).toHaveLength(2 * MAX_BATCH);
    expect(listed.items.map((r) => r.created_at)).toEqual(
      Array.from({ length: 2 * MAX_BATCH }, (_, i) => new Date(at + 2 * MAX_BATCH - 1 - i).toISOString()),
    );
  });
});
