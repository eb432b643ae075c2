import type { McpCallRow } from '../../src/content/db/stores/misc-stores.js';
import type { SqlExecutor } from '../../src/platform/db/sql.js';

/**
 * The call log's INSERT as a build before content migration 025 wrote it: no `id_sorts_by_time`
 * to name, so the entry takes the column's default. Both kinds of such builds, those with random
 * ids and the last one before the column (ids that sort by time), may write beside a newer one
 * during a rolling upgrade.
 */
export function olderBuildInsert(db: SqlExecutor, batch: McpCallRow[]) {
  return db.run(
    `INSERT INTO mcp_calls (id, key_id, tool, args, outcome, error_code, error_message, duration_ms, created_at)
     VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
    batch.flatMap((r) => [
      r.id,
      r.key_id,
      r.tool,
      JSON.stringify(r.args),
      r.outcome,
      r.error_code,
      r.error_message,
      r.duration_ms,
      r.created_at,
    ]),
  );
}
