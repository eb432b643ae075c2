import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteDatabase } from '../../src/platform/db/sqlite.js';

const TABLE = [{ id: 1, name: 't', up: 'CREATE TABLE t (n INTEGER)', postgres: 'CREATE TABLE t (n BIGINT)' }];

describe('GatedDatabase', () => {
  it('serializes transactions started in the same tick and keeps plain queries out of them', async () => {
    const db = openSqliteDatabase(':memory:', TABLE);
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

  it('runs a statement at once, and waits without blocking when another connection holds the write lock', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-busy-'));
    const file = join(dir, 'db.sqlite');
    const mine = openSqliteDatabase(file, TABLE);
    const other = openSqliteDatabase(file, TABLE);
    try {
      // Free database: the first attempt is the statement itself, in this very call.
      void mine.run('INSERT INTO t (n) VALUES (1)');
      expect(other.raw.prepare('SELECT count(*) AS c FROM t').get()).toEqual({ c: 1 });

      // Another connection (another instance, the CLI) holds the write lock: the first attempt
      // meets SQLITE_BUSY and the statement goes on waiting asynchronously, so the timer that
      // lets go of the lock gets to run.
      other.raw.exec('BEGIN IMMEDIATE');
      let released = false;
      setTimeout(() => {
        released = true;
        other.raw.exec('COMMIT');
      }, 100);
      let settled = false;
      const waiting = mine.run('INSERT INTO t (n) VALUES (2)').then((r) => {
        settled = true;
        return r;
      });
      await new Promise((r) => setImmediate(r));
      expect(settled).toBe(false);
      expect(await waiting).toEqual({ changes: 1 });
      expect(released).toBe(true);
      expect(await mine.all('SELECT n FROM t ORDER BY n')).toEqual([{ n: 1 }, { n: 2 }]);

      // Any other failure is a rejected promise, as before, never a throw at the call.
      const bad = mine.get('SELECT nope FROM t');
      expect(bad).toBeInstanceOf(Promise);
      await expect(bad).rejects.toThrow(/no such column/);
    } finally {
      await mine.close();
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
