import type { SqlDatabase } from '../../src/platform/db/sql.js';

/**
 * The MCP key cache's lease renewals (a read of `key_epoch` every 0.5 s, services/key-cache.ts)
 * run on their own timer, not for any request: left in, they would land in a request's count
 * whenever the timer fired during it. test/content/mcp-key-cache.test.ts counts them itself.
 */
const isBackground = (sql: string) => sql.includes('key_epoch');

/**
 * Counts the statements run and rows read on the service's database (outside transactions, and
 * leaving out the key cache's background reads); `sql` lists their text, for a test that asserts
 * which reads a request makes.
 */
export function countReads(db: SqlDatabase) {
  const counts = { statements: 0, rows: 0 };
  const texts: string[] = [];
  const all = db.all.bind(db);
  const get = db.get.bind(db);
  const target = db as unknown as Record<'all' | 'get', unknown>;
  target.all = async (sql: string, params?: never) => {
    const rows = await all(sql, params);
    if (isBackground(sql)) return rows;
    counts.statements++;
    texts.push(sql);
    counts.rows += rows.length;
    return rows;
  };
  target.get = async (sql: string, params?: never) => {
    const row = await get(sql, params);
    if (isBackground(sql)) return row;
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
