import type { SqlValue } from '../../../platform/db/sql.js';
import { base62Fixed } from '../../../platform/ids.js';
import { EARLIER_CALLS, END_RECENT_ID, RECENT_CALLS } from '../migrations/024-call-log-recent-by-id.js';
import { afterClause, decodeCursor } from './paging.js';

export interface McpCallsFilter {
  keyId?: string | undefined;
  tool?: string | undefined;
}

export const NEWEST_FIRST = 'ORDER BY created_at DESC, id DESC';
const SORT_KEY = ['created_at', 'id'] as const;
/** The first millisecond whose 8 digits are END_RECENT_ID's (2081-08-05): no recent id reaches it. */
const DIGITS_END_MS = 62 ** 7;

/**
 * Past a cursor, a recent entry's id is below the first id of the millisecond after the cursor's
 * `created_at` (its 8 digits are its own millisecond's): the range the primary key is read in.
 * The row comparison beside it decides; this only keeps the read from starting at the top.
 */
function recentIdBelow(after: string | undefined): SqlValue[] | null {
  const key = decodeCursor(after, SORT_KEY);
  if (!key) return null;
  const ms = Date.parse(String(key[0]));
  return [ms >= 0 && ms + 1 < DIGITS_END_MS ? `mcpc_${base62Fixed(ms + 1, 8)}` : END_RECENT_ID];
}

/**
 * The first `n` entries of the log under the key filter and after the cursor, newest first:
 * `columns` of them, as one SELECT. A key's entries are read off `mcp_calls_key` backwards. The
 * whole log is two reads (migration 024): recent entries off the primary key backwards (their ids
 * sort by time) and earlier ones off the partial `mcp_calls_earlier`, each at most `n`, merged by
 * the sort key: a sort of at most 2n rows, never of the log.
 */
export function callsWalk(filter: McpCallsFilter, after: string | undefined, n: number, columns = '*') {
  const a = afterClause(['created_at', 'id'], after);
  if (filter.keyId)
    return {
      sql: `SELECT ${columns} FROM mcp_calls WHERE key_id = ?${a.sql} ${NEWEST_FIRST} LIMIT ?`,
      params: [filter.keyId, ...a.params, n],
    };
  const below = recentIdBelow(after);
  return {
    sql: `SELECT * FROM (SELECT ${columns} FROM mcp_calls WHERE ${RECENT_CALLS}${below ? ' AND id < ?' : ''}${a.sql}
           ORDER BY id DESC LIMIT ?) AS recent
         UNION ALL
         SELECT * FROM (SELECT ${columns} FROM mcp_calls WHERE ${EARLIER_CALLS}${a.sql} ${NEWEST_FIRST} LIMIT ?) AS earlier
         ${NEWEST_FIRST} LIMIT ?`,
    params: [...(below ?? []), ...a.params, n, ...a.params, n, n],
  };
}
