import { describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/platform/db/sqlite.js';
import { SQLITE_STATEMENTS_PER_CONNECTION } from '../../src/platform/db/sqlite-statements.js';

const TABLE = [{ id: 1, name: 't', up: 'CREATE TABLE t (n INTEGER)', postgres: 'CREATE TABLE t (n BIGINT)' }];
const inList = (n: number) =>
  `SELECT n FROM t WHERE n IN (${Array.from({ length: n }, () => '?').join(', ')})`;
const ones = (n: number) => Array.from({ length: n }, () => 1);

describe('SQLite prepared statements', () => {
  it('keeps at most SQLITE_STATEMENTS_PER_CONNECTION, however many texts a connection meets', async () => {
    const db = openSqliteDatabase(':memory:', TABLE);
    try {
      await db.run('INSERT INTO t (n) VALUES (1)');
      // `IN (…)` lists of every length, as a store writes them: each length is a text of its own.
      for (let n = 1; n <= SQLITE_STATEMENTS_PER_CONNECTION * 2; n++) {
        expect(await db.all(inList(n), ones(n))).toEqual([{ n: 1 }]);
      }
      expect(db.statements.cached()).toBe(SQLITE_STATEMENTS_PER_CONNECTION);
      // Inside a transaction too: both executors share the connection's statements.
      await db.transaction(async (tx) => {
        for (let n = 1; n <= 10; n++) await tx.all(`${inList(n)} AND ${n} = ${n}`, ones(n));
      });
      expect(db.statements.cached()).toBe(SQLITE_STATEMENTS_PER_CONNECTION);
    } finally {
      await db.close();
    }
  });

  it('drops the least recently used: a statement in use is not prepared again', async () => {
    const db = openSqliteDatabase(':memory:', TABLE);
    try {
      const hot = 'SELECT count(*) AS c FROM t';
      await db.get(hot);
      const before = db.statements.prepared();
      // Many more texts than the bound, the hot one run between each: it stays.
      for (let n = 1; n <= SQLITE_STATEMENTS_PER_CONNECTION * 2; n++) {
        await db.all(inList(n), ones(n));
        await db.get(hot);
      }
      expect(db.statements.prepared() - before).toBe(SQLITE_STATEMENTS_PER_CONNECTION * 2);
      // An evicted text is prepared again when met again, and still runs.
      expect(await db.all(inList(1), [1])).toEqual([]);
      expect(db.statements.prepared() - before).toBe(SQLITE_STATEMENTS_PER_CONNECTION * 2 + 1);
      // The same text twice in a row is prepared once.
      await db.get(hot);
      expect(db.statements.prepared() - before).toBe(SQLITE_STATEMENTS_PER_CONNECTION * 2 + 1);
    } finally {
      await db.close();
    }
  });
});
