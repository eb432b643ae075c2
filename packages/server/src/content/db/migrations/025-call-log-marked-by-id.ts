import { toFlag } from '../../../platform/db/flags.js';
import type { Migration } from '../../../platform/db/sql.js';
import { base62Fixed } from '../../../platform/ids.js';
import { RECENT_CALLS as RECENT_BY_RANGE, TIME_ORDERED_SINCE } from './024-call-log-recent-by-id.js';

/**
 * Migration 024 told an entry read by id (its id sorts by time) from one read off the partial
 * `mcp_calls_earlier` by its `created_at` and the range its id falls in. A build older than the
 * time-ordered ids, still writing after the cut-off (an upgrade days later, a rolling upgrade),
 * writes random ids of which about 1 in 125 fall in that range: such an entry was read by id as
 * if made up to 2081, and no page listed it. An audit log may not leave entries out.
 *
 * So an entry now says how it is read: `id_sorts_by_time` is true only where the id's 8 base62 digits
 * are exactly its `created_at` millisecond, set by the insert (stores/misc-stores.ts) and, here,
 * for the entries already written. Every other writer leaves the default, false, which puts the entry
 * in the partial index: a build with random ids, and the last build without the column (its ids
 * sort by time, but it cannot say so; read by `created_at` they come out the same). During a
 * rolling upgrade all three may write; each entry is in exactly one of the two reads, whoever
 * wrote it. The older builds' own reads name 024's conditions, which this index no longer
 * repeats: they stay correct, reading more of the table, until they are replaced.
 *
 * Only entries from the cut-off on, before 2081 (the digits' first carry, END_RECENT_ID), are
 * marked: so a marked id is always inside [FIRST_RECENT_ID, END_RECENT_ID), the primary-key range
 * the walk reads. `created_at` must be the canonical ISO text (it sorts as the id's digits).
 */
export const ID_SORTS_BY_TIME_FROM_MS = Date.parse(TIME_ORDERED_SINCE);
const DIGITS_END_MS = 62 ** 7;
const PREFIX = 'mcpc_';

/**
 * The 8 digits an id made at `createdAt` carries, or null when no id made then is read by id
 * (outside the marked span, or not the canonical ISO text). The call log writes many entries a
 * millisecond and every one is checked at insert, on the MCP call's path: the last time's digits
 * are kept, so a batch pays for the parse and the digits once per millisecond, not per entry.
 */
let lastCreatedAt: string | undefined;
let lastDigits: string | null = null;
function digitsFor(createdAt: string): string | null {
  if (createdAt === lastCreatedAt) return lastDigits;
  const ms = Date.parse(createdAt);
  const inSpan =
    ms >= ID_SORTS_BY_TIME_FROM_MS && ms < DIGITS_END_MS && new Date(ms).toISOString() === createdAt;
  lastCreatedAt = createdAt;
  lastDigits = inSpan ? base62Fixed(ms, 8) : null;
  return lastDigits;
}

/** Whether an entry's id sorts as its `created_at` (the digits are its millisecond). */
export function idSortsByTime(id: string, createdAt: string): boolean {
  const digits = digitsFor(createdAt);
  return digits !== null && id.startsWith(PREFIX) && id.slice(PREFIX.length, PREFIX.length + 8) === digits;
}

/** Read off the primary key by id: ids inside [FIRST_RECENT_ID, END_RECENT_ID), which they sort in. */
export const RECENT_CALLS = 'id_sorts_by_time = TRUE';
/** Read off the partial `mcp_calls_earlier` by `(created_at, id)`. Both engines use it only when the query repeats this text. */
export const EARLIER_CALLS = 'id_sorts_by_time = FALSE';

/** A flag (platform/db/flags.ts): INTEGER 0/1 on SQLite, BOOLEAN on PostgreSQL. */
const addColumn = (type: string, unset: string) =>
  `ALTER TABLE mcp_calls ADD COLUMN id_sorts_by_time ${type} NOT NULL DEFAULT ${unset};`;
const REPLACE_INDEX = `
  DROP INDEX mcp_calls_earlier;
  CREATE INDEX mcp_calls_earlier ON mcp_calls (created_at, id) WHERE ${EARLIER_CALLS};
`;
/** Only 024's recent range can hold a marked entry: read on the primary key, not the whole log. */
const CANDIDATES = `${RECENT_BY_RANGE} AND length(id) >= ${PREFIX.length + 8}`;

/** PostgreSQL has no JavaScript: the id's 8 digits as a number, then as the ISO text `created_at` holds. */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const digitsMs = Array.from(
  { length: 8 },
  (_, i) => `(strpos('${BASE62}', substr(id, ${PREFIX.length + 1 + i}, 1)) - 1) * ${62 ** (7 - i)}::bigint`,
).join(' + ');
const digitsIso = `to_char(timestamp '1970-01-01' + (${digitsMs}) * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

export const callLogMarkedByIdMigration: Migration = {
  id: 25,
  name: 'MCP call log: entries read by id are marked so',
  up: (db, log) => {
    db.exec(addColumn('INTEGER', '0'));
    // One UPDATE, the check in JavaScript row by row: a log of millions is never held in memory.
    db.function('svc_id_sorts_by_time', { deterministic: true }, (id, createdAt) =>
      toFlag(idSortsByTime(String(id), String(createdAt))),
    );
    const n = db.prepare(`SELECT count(*) FROM mcp_calls WHERE ${CANDIDATES}`).pluck().get() as number;
    const marked = db
      .prepare(
        `UPDATE mcp_calls SET id_sorts_by_time = 1 WHERE ${CANDIDATES} AND svc_id_sorts_by_time(id, created_at) = 1`,
      )
      .run().changes;
    if (n > marked)
      log(
        `mcp_calls: ${n - marked} entries written since ${TIME_ORDERED_SINCE} by an older build are now read by their time`,
      );
    db.exec(REPLACE_INDEX);
  },
  postgres: `
    ${addColumn('BOOLEAN', 'FALSE')}
    UPDATE mcp_calls SET id_sorts_by_time = TRUE
      WHERE ${CANDIDATES} AND substr(id, 1, ${PREFIX.length}) = '${PREFIX}' AND ${digitsIso} = created_at;
    ${REPLACE_INDEX}
  `,
};
