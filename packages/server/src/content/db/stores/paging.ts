import type { SqlValue } from '../../../platform/db/sql.js';
import { AppError } from '../../../platform/errors.js';

export type Key = (string | number)[];

/** Cursors are opaque to clients: base64url of the sort key of the last row returned. */
export const encodeCursor = (key: Key) => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');

export function decodeCursor(after: string | undefined, length: number): Key | null {
  if (after === undefined) return null;
  try {
    const key = JSON.parse(Buffer.from(after, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(key) &&
      key.length === length &&
      // No key this list returns holds U+0000, which PostgreSQL would refuse (a 500, not a 400).
      key.every((v) => (typeof v === 'string' && !v.includes('\u0000')) || typeof v === 'number')
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
  columns: string[],
  after: string | undefined,
): { sql: string; params: SqlValue[] } {
  const key = decodeCursor(after, columns.length);
  if (!key) return { sql: '', params: [] };
  return { sql: ` AND (${columns.join(', ')}) < (${columns.map(() => '?').join(', ')})`, params: key };
}

export function toPage<T>(rows: T[], limit: number, keyOf: (row: T) => Key) {
  const has_more = rows.length > limit;
  const items = has_more ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return { items, has_more, next_after: has_more && last ? encodeCursor(keyOf(last)) : null };
}

export const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
