import type { SqlDatabase } from '../../src/platform/db/sql.js';

/** Counts the statements run and rows read on the service's database (outside transactions). */
export function countReads(db: SqlDatabase) {
  const counts = { statements: 0, rows: 0 };
  const all = db.all.bind(db);
  const get = db.get.bind(db);
  const target = db as unknown as Record<'all' | 'get', unknown>;
  target.all = async (sql: string, params?: never) => {
    const rows = await all(sql, params);
    counts.statements++;
    counts.rows += rows.length;
    return rows;
  };
  target.get = async (sql: string, params?: never) => {
    const row = await get(sql, params);
    counts.statements++;
    counts.rows += row === undefined ? 0 : 1;
    return row;
  };
  return {
    /** The reads `fn` makes. */
    async during(fn: () => Promise<unknown>) {
      const before = { ...counts };
      await fn();
      return { statements: counts.statements - before.statements, rows: counts.rows - before.rows };
    },
  };
}
