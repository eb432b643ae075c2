import type { Dialect } from '../../../platform/db/sql.js';
import { base62Fixed } from '../../../platform/ids.js';
import { END_RECENT_ID, FIRST_RECENT_ID } from '../migrations/024-call-log-recent-by-id.js';
import {
  EARLIER_CALLS,
  ID_SORTS_BY_TIME_FROM_MS,
  RECENT_CALLS,
} from '../migrations/025-call-log-marked-by-id.js';
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
 * The first millisecond of the marked span (migration 025) whose ISO text sorts above `text`, or
 * at it too with `orAt`; DIGITS_END_MS when none does. Inside the span every ISO text has one
 * width, so text order is time order, and a recent entry's `created_at` is below `text` (or at it)
 * exactly when its millisecond is below this one. `text` may be any string: a client writes its
 * own cursor, and a time Date.parse reads as before 1970 ("1969-…") or not at all ("0", "2026-11-27Tz")
 * once gave END_RECENT_ID, so the recent read walked every recent entry of the log to find none.
 */
function firstMsAbove(text: string, orAt: boolean): number {
  const above = (ms: number) => {
    const iso = new Date(ms).toISOString();
    return orAt ? iso >= text : iso > text;
  };
  // A canonical time, which every cursor this list returns holds: no search.
  const ms = Date.parse(text);
  if (ms >= ID_SORTS_BY_TIME_FROM_MS && ms < DIGITS_END_MS && new Date(ms).toISOString() === text)
    return orAt ? ms : ms + 1;
  let lo = ID_SORTS_BY_TIME_FROM_MS;
  let hi = DIGITS_END_MS;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (above(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The first id a recent entry of millisecond `ms` of the marked span can have (its 8 digits are
 * its millisecond's), so every recent entry from before `ms` has a smaller id; END_RECENT_ID, above
 * every recent id, at DIGITS_END_MS. A bound for reading the primary key in a range only: a
 * condition on `created_at` beside it decides which entries are meant.
 */
function firstRecentIdAt(ms: number): string {
  return ms < DIGITS_END_MS ? `mcpc_${base62Fixed(ms, 8)}` : END_RECENT_ID;
}

/**
 * Past a cursor, a recent entry's id is below the first id of the first millisecond after the
 * cursor's `created_at`: the range the primary key is read in. The row comparison beside it
 * decides; this only keeps the read from starting at the top, or from walking entries it cannot take.
 */
function recentIdBelow(after: string | undefined): string {
  const key = decodeCursor(after, SORT_KEY);
  return key ? firstRecentIdAt(firstMsAbove(String(key[0]), false)) : END_RECENT_ID;
}

/**
 * The recent entries (migration 025 marks them) in the primary key's range `[FIRST_RECENT_ID, below)`,
 * which every marked id is inside: the bounds keep the read off the random ids of older builds
 * (most sort above every time-ordered id), the mark decides.
 */
const RECENT_IN_RANGE = `${RECENT_CALLS} AND id >= '${FIRST_RECENT_ID}' AND id < ?`;

/**
 * The first `n` entries of the log under the key filter and after the cursor, newest first:
 * `columns` of them, as one SELECT. A key's entries are read off `mcp_calls_key` backwards. The
 * whole log is two reads (migrations 024 and 025): recent entries off the primary key backwards (their ids
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
  return {
    sql: `SELECT * FROM (SELECT ${columns} FROM mcp_calls WHERE ${RECENT_IN_RANGE}${a.sql}
           ORDER BY id DESC LIMIT ?) AS recent
         UNION ALL
         SELECT * FROM (SELECT ${columns} FROM mcp_calls WHERE ${EARLIER_CALLS}${a.sql} ${NEWEST_FIRST} LIMIT ?) AS earlier
         ${NEWEST_FIRST} LIMIT ?`,
    params: [recentIdBelow(after), ...a.params, n, ...a.params, n, n],
  };
}

/**
 * One bounded step of the retention sweep (services/mcp-call-retention.ts): deletes at most `n`
 * entries from before `before` (an ISO time), found on the same two indexes as the walk, oldest
 * first: earlier entries off `mcp_calls_earlier` (a range of `created_at`), recent ones off the
 * primary key (ids below the cut-off's first id: a range of `id`, as their ids sort by time). The
 * `created_at < ?` on each side is the rule; the id bound is what makes the recent side a range
 * read instead of a walk of the whole key, and costs nothing more, as a deleted row is read anyway.
 * Both engines use a partial index only when the query repeats its condition, hence the verbatim
 * texts (migration 025).
 *
 * The rows are then deleted by id. SQLite looks each up on the primary key. PostgreSQL, given
 * `id IN (subquery)`, joins: it hashes the ids and scans the whole table whenever it judges that
 * cheaper than `n` lookups, which on a table of a few hundred thousand entries it does for every
 * batch. `= ANY(ARRAY(subquery))` makes the ids one value, found on the primary key.
 */
export function callsBeforeSql(before: string, n: number, dialect: Dialect) {
  const ids = `SELECT id FROM (SELECT id FROM mcp_calls WHERE ${EARLIER_CALLS} AND created_at < ?
                                ORDER BY created_at, id LIMIT ?) AS earlier
               UNION ALL
               SELECT id FROM (SELECT id FROM mcp_calls WHERE ${RECENT_IN_RANGE} AND created_at < ?
                                ORDER BY id LIMIT ?) AS recent
               LIMIT ?`;
  return {
    sql: `DELETE FROM mcp_calls WHERE ${dialect === 'postgres' ? `id = ANY(ARRAY(${ids}))` : `id IN (${ids})`}`,
    params: [before, n, firstRecentIdAt(firstMsAbove(before, true)), before, n, n],
  };
}
