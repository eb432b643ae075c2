import type { Migration } from '../../../platform/db/sql.js';
import { base62Fixed } from '../../../platform/ids.js';

/**
 * Since 2026-11-26 the call log's ids sort by time (timeOrderedId: `mcpc_`, the millisecond of
 * `created_at` in 8 base62 digits, then random characters), so for those entries the primary key
 * is already in `(created_at, id)` order and `mcp_calls_created` repeated it: a fourth b-tree
 * entry on every call (issue 20). Older entries have random ids, which no rewrite may change
 * (people hold them, and cursors name them), so they keep a `(created_at, id)` index of their own,
 * partial: a new entry is not in it. An entry is "recent", read in primary-key order, when it is
 * from after the cut-off and its id is inside the range time-ordered ids take from the cut-off to
 * 2081 (the 8 digits' first carry); anything else, an entry written by a build older than the
 * time-ordered ids included, is in the partial index. The two sets are exact complements
 * (neither column is ever NULL), and the store (stores/mcp-calls-walk.ts) names these texts
 * verbatim: both engines use a partial index only when the query repeats its condition.
 *
 * Migration 025 replaced these conditions: a build older than the time-ordered ids, still writing
 * after the cut-off, writes random ids of which about 1 in 125 fall in the recent range, and such
 * an entry was listed nowhere. The constants stay for the index this step builds (and its undo).
 */
export const TIME_ORDERED_SINCE = '2026-11-27T00:00:00.000Z';
export const FIRST_RECENT_ID = `mcpc_${base62Fixed(Date.parse(TIME_ORDERED_SINCE), 8)}`;
export const END_RECENT_ID = 'mcpc_10000000';
export const EARLIER_CALLS = `(created_at < '${TIME_ORDERED_SINCE}' OR id < '${FIRST_RECENT_ID}' OR id >= '${END_RECENT_ID}')`;
export const RECENT_CALLS = `created_at >= '${TIME_ORDERED_SINCE}' AND id >= '${FIRST_RECENT_ID}' AND id < '${END_RECENT_ID}'`;

/** Building the partial index reads the log once, inside the migration; nothing is rewritten. */
const RECENT_BY_ID = `
  CREATE INDEX mcp_calls_earlier ON mcp_calls (created_at, id) WHERE ${EARLIER_CALLS};
  DROP INDEX mcp_calls_created;
`;

export const callLogRecentByIdMigration: Migration = {
  id: 24,
  name: 'MCP call log: recent entries read by primary key',
  up: RECENT_BY_ID,
  postgres: RECENT_BY_ID,
};
