/**
 * Invariants live in the schema (unique indexes, conditional updates), so a write can fail
 * because a concurrent request got there first, after every check in the service passed. That
 * is a conflict the caller can act on (409), never a 500: stores catch the violation of the index
 * they know about and throw the domain's error instead.
 *
 * SQLite names the columns of the violated index ("UNIQUE constraint failed: posts.channel_id,
 * posts.slot_hour"); PostgreSQL reports code 23505 with the key in `detail`
 * ("Key (channel_id, slot_hour)=(…) already exists."). Both are matched by table and columns, so
 * the index may be renamed without breaking the mapping.
 */
export function isUniqueViolation(err: unknown, table: string, columns: readonly string[]): boolean {
  if (!(err instanceof Error)) return false;
  const e = err as Error & { code?: unknown; detail?: unknown; table?: unknown };
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const named = e.message.replace(/^UNIQUE constraint failed: /, '');
    return named === columns.map((c) => `${table}.${c}`).join(', ');
  }
  if (e.code === '23505' && typeof e.detail === 'string')
    return (
      (e.table === undefined || e.table === table) && e.detail.startsWith(`Key (${columns.join(', ')})=`)
    );
  return false;
}

/**
 * Runs a write and turns the violation of one unique index into `conflict()`; anything else
 * (including another index's violation, which would be a bug) propagates unchanged.
 */
export async function onUniqueViolation<T>(
  write: Promise<T>,
  table: string,
  columns: readonly string[],
  conflict: () => Error,
): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (isUniqueViolation(err, table, columns)) throw conflict();
    throw err;
  }
}
