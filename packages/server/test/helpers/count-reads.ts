import type { SqlDatabase } from '../../src/platform/db/sql.js';

/**
 * Counts the statements run and rows read on the service's database (outside transactions);
 * `sql` lists their text, for a test that asserts which reads a request makes.
 */
export function countReads(db: SqlDatabase) {
  const counts = { statements: 0, rows: 0 };
  const texts: string[] = [];
  const all = db.all.bind(db);
  const get = db.get.bind(db);
  const target = db as unknown as Record<'all' | 'get', unknown>;
  target.all = async (sql: string, params?: never) => {
    const rows = await all(sql, params);
    counts.statements++;
    texts.push(sql);
    counts.rows += rows.length;
    return rows;
  };
  target.get = async (sql: string, params?: never) => {
    const row = await get(sql, params);
    counts.statements++;
    texts.push(sql);
    counts.rows += row === undefined ? 0 : 1;
    return row;
  };
  return {
    /** The reads `fn` makes. */
    async during(fn: () => Promise<unknown>) {
      const before = { ...counts, texts: texts.length };
      await fn();
      return {
        statements: counts.statements - before.statements,
        rows: counts.rows - before.rows,
        sql: texts.slice(before.texts),
      };
    },
  };
}
