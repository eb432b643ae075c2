/**
 * Reading columns into typed records, at the store's boundary: services get unions and decoded
 * JSON, never text to parse or cast. A value outside its union or JSON of the wrong shape means
 * the row was not written by this code (a hand edit, a newer version of svc): the read fails
 * with an error that names the column, rather than handing the service something it cannot
 * handle.
 */

const corrupt = (table: string, column: string, value: unknown, expected: string) =>
  new Error(
    `${table}.${column} holds ${JSON.stringify(value)?.slice(0, 80)}, not ${expected}. The row was not written by this version of svc; restore it from a backup or fix it by hand.`,
  );

/** One of a union's values (statuses, platforms, kinds). */
export function oneOf<T extends string>(
  values: readonly T[],
  table: string,
  column: string,
  value: unknown,
): T {
  if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as T;
  throw corrupt(table, column, value, `one of ${values.join(', ')}`);
}

/** The same, for a nullable column. */
export const oneOfOrNull = <T extends string>(
  values: readonly T[],
  table: string,
  column: string,
  value: unknown,
): T | null => (value == null ? null : oneOf(values, table, column, value));

type Shape = 'array' | 'object' | 'any';

const fits = (v: unknown, shape: Shape) =>
  shape === 'any' ||
  (shape === 'array' ? Array.isArray(v) : typeof v === 'object' && v !== null && !Array.isArray(v));

/**
 * A JSON column, parsed and checked for its outer shape. PostgreSQL's `pg` may hand back a value
 * already parsed (json columns); SQLite always gives the text.
 */
export function decodeJson<T>(shape: Shape, table: string, column: string, value: unknown): T {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw corrupt(table, column, value, 'JSON');
    }
  }
  if (!fits(parsed, shape)) throw corrupt(table, column, value, `a JSON ${shape}`);
  return parsed as T;
}

/** The same, for a nullable column (SQL NULL and JSON `null` both read as null). */
export function decodeJsonOrNull<T>(shape: Shape, table: string, column: string, value: unknown): T | null {
  if (value == null) return null;
  const parsed = decodeJson<T | null>('any', table, column, value);
  if (parsed === null) return null;
  if (!fits(parsed, shape)) throw corrupt(table, column, value, `a JSON ${shape}`);
  return parsed;
}

/** How a JSON column is written: `null` stays SQL NULL. */
export const toJsonColumn = (value: unknown): string | null => (value == null ? null : JSON.stringify(value));

/** COUNT and BIGINT results: `pg` answers them as strings. */
export const toNumber = (value: unknown): number => Number(value ?? 0);
