import type { SqlValue } from '../../../platform/db/sql.js';
import { AppError } from '../../../platform/errors.js';

export type Key = (string | number)[];

/** Cursors are opaque to clients: base64url of the sort key of the last row returned. */
export const encodeCursor = (key: Key) => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

/**
 * A column a list sorts by. Most are text (timestamps, ids); a rank is a whole number, marked
 * `{ integer: 'pending_rank' }`. The cursor's value for it must then be one too. The threat: a
 * client writes its own cursor, and PostgreSQL refuses to compare a BIGINT column with
 * `"x"`, `1.5` or `1e999` (read as Infinity). The statement failed, so the list answered 500 and
 * logged a server fault, where SQLite answered 200.
 */
export type SortColumn = string | { readonly integer: string };

const nameOf = (c: SortColumn) => (typeof c === 'string' ? c : c.integer);

/** Whether `v` is what a cursor this list returned holds for column `c`. */
function fitsColumn(v: unknown, c: SortColumn): boolean {
  if (typeof c !== 'string') return Number.isSafeInteger(v);
  // No key this list returns holds U+0000, which PostgreSQL would refuse (a 500, not a 400).
  return typeof v === 'string' && !v.includes('\u0000');
}

export function decodeCursor(after: string | undefined, columns: readonly SortColumn[]): Key | null {
  if (after === undefined) return null;
  try {
    const key = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(key) &&
      key.length === columns.length &&
      key.every((v, i) => fitsColumn(v, columns[i] as SortColumn))
    )
      return key as Key;
  } catch {
    // fall through to the error below
  }
  throw new AppError(
    400,
    'INVALID_CURSOR',
    "'after' is not a cursor this list returned. Pass next_after as is.",
    {
      param: 'after',
    },
  );
}

/**
 * Keyset paging, newest first: every column sorts descending, so one row-value comparison
 * continues after the cursor and can use the (…, sort, id) indexes.
 */
export function afterClause(
  columns: readonly SortColumn[],
  after: string | undefined,
): { sql: string; params: SqlValue[] } {
  const key = decodeCursor(after, columns);
  if (!key) return { sql: '', params: [] };
  const names = columns.map(nameOf);
  return { sql: ` AND (${names.join(', ')}) < (${names.map(() => '?').join(', ')})`, params: key };
}

export function toPage<T>(rows: T[], limit: number, keyOf: (row: T) => Key) {
  const has_more = rows.length > limit;
  const items = has_more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, has_more, next_after: has_more && last ? encodeCursor(keyOf(last)) : null };
}

export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
