import { type McpCallRow, mcpCallsStore, type NewMcpCall } from '../../src/content/db/stores/misc-stores.js';
import type { SqlExecutor } from '../../src/platform/db/sql.js';
import { randomIds, timeOrderedId } from '../../src/platform/ids.js';

/**
 * One MCP call-log entry as a test writes it: a successful call at `at`, keyless unless `key_id`
 * says. The id is this build's (time-ordered, random digits) unless the test names it: a
 * `countedId` (neither random nor time-ordered, so a failure names the entry), or an older
 * build's.
 */
export function callRow(r: {
  at: Date | number;
  tool: string;
  id?: string;
  key_id?: string | null;
  args?: Record<string, unknown>;
}): McpCallRow {
  const at = new Date(r.at);
  return {
    id: r.id ?? timeOrderedId(randomIds, 'mcpc', at),
    key_id: r.key_id ?? null,
    tool: r.tool,
    args: r.args ?? {},
    outcome: 'ok',
    error_code: null,
    error_message: null,
    duration_ms: 1,
    created_at: at.toISOString(),
  };
}

/** `mcpc_` and `n` in 24 digits: an id that says which entry it is. */
export const countedId = (n: number) => `mcpc_${String(n).padStart(24, '0')}`;

/** A time-ordered id for `at` whose last digits count `n` rather than being random. */
export const countedTimeId = (n: number, at: Date) =>
  timeOrderedId({ make: (p) => `${p}_${String(n).padStart(24, '0')}` }, 'mcpc', at);

/** The entry as this build's log writes it: its arguments serialised. */
export const newCall = (r: McpCallRow): NewMcpCall => ({ ...r, args: JSON.stringify(r.args) });

/** `rows` written by this build's store, oldest first, in batches of `size` as the log writes them. */
export async function writeCalls(db: SqlExecutor, rows: McpCallRow[], size = 200) {
  for (let i = 0; i < rows.length; i += size)
    await mcpCallsStore(db).insertMany(rows.slice(i, i + size).map(newCall));
}

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
