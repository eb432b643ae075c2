import { describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/platform/db/sqlite.js';

describe('GatedDatabase', () => {
  it('serializes transactions started in the same tick and keeps plain queries out of them', async () => {
    const db = openSqliteDatabase(':memory:', [
      { id: 1, name: 't', up: 'CREATE TABLE t (n INTEGER)', postgres: 'CREATE TABLE t (n BIGINT)' },
    ]);
    const order: string[] = [];
    const tx = (name: string, fail: boolean) =>
      db
        .transaction(async (x) => {
          order.push(`${name}:begin`);
          await x.run('INSERT INTO t (n) VALUES (1)');
          await new Promise((r) => setTimeout(r, 2));
          order.push(`${name}:end`);
          if (fail) throw new Error('rollback');
        })
        .catch(() => undefined);
    await Promise.all([tx('a', true), tx('b', false), db.run('INSERT INTO t (n) VALUES (2)'), tx('c', true)]);
    expect(order).toEqual(['a:begin', 'a:end', 'b:begin', 'b:end', 'c:begin', 'c:end']);
    // Only b's row and the plain insert survive: the plain insert was not rolled back with a or c.
    expect(await db.all('SELECT n FROM t ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }]);
    await db.close();
  });
});
