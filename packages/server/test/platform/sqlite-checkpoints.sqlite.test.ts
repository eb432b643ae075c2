import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { openSqliteDatabase } from '../../src/platform/db/sqlite.js';
import {
  BUSY_AFTER,
  BUSY_WINDOW_MS,
  backgroundCheckpoints,
} from '../../src/platform/db/sqlite-checkpoints.js';

const TABLE = [
  {
    id: 1,
    name: 't',
    up: 'CREATE TABLE t (n INTEGER, pad TEXT)',
    postgres: 'CREATE TABLE t (n BIGINT, pad TEXT)',
  },
];

/** Write transactions of a few pages each, as a busy service commits them. */
async function writeTransactions(db: ReturnType<typeof openSqliteDatabase>, from: number, count: number) {
  for (let i = from; i < from + count; i++)
    await db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (n, pad) VALUES (?, ?)', [i, 'x'.repeat(6000)]);
    });
}

const autocheckpoint = (db: ReturnType<typeof openSqliteDatabase>) =>
  db.raw.pragma('wal_autocheckpoint', { simple: true });

describe('WAL checkpoints of a busy SQLite database', () => {
  it('move to a thread of their own once the database is busy, and come back when it closes', async () => {
    // A dot-folder in the path, as a real data directory may have.
    const dir = mkdtempSync(join(tmpdir(), 'svc-checkpoints-'));
    const file = join(dir, '.data', 'db.sqlite');
    const db = openSqliteDatabase(file, TABLE);
    try {
      // A quiet database keeps SQLite's own checkpoints, and no thread (it costs memory).
      await writeTransactions(db, 0, BUSY_AFTER - 1);
      expect(db.checkpoints?.handedOff()).toBe(false);
      expect(autocheckpoint(db)).toBe(1000);

      // Busy: commits no longer checkpoint on this connection (so they never wait for the disk
      // on the event loop), and the thread's connection does it instead.
      await writeTransactions(db, BUSY_AFTER - 1, 400);
      expect(db.checkpoints?.handedOff()).toBe(true);
      expect(autocheckpoint(db)).toBe(0);
      await vi.waitFor(() => expect(db.checkpoints?.runs()).toBeGreaterThan(0), { timeout: 10_000 });

      // Every row is still there, read through the main connection.
      expect(await db.get('SELECT COUNT(*) AS c FROM t')).toEqual({ c: BUSY_AFTER + 399 });
    } finally {
      await db.close();
    }
    // Closing stops the thread and gives the checkpoints back.
    expect(db.checkpoints?.handedOff()).toBe(false);

    // The file reopens whole (the thread's connection closed cleanly).
    const again = openSqliteDatabase(file, TABLE);
    expect(await again.get('SELECT COUNT(*) AS c FROM t')).toEqual({ c: BUSY_AFTER + 399 });
    await again.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a thread that never answers the stop is terminated, and the connection checkpoints itself again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-checkpoints-'));
    const file = join(dir, '.data', 'db.sqlite');
    await openSqliteDatabase(file, TABLE).close(); // creates the dot-folder and the WAL database
    const db = new Database(file);
    // Spins on the stop message: its event loop never runs again, so it never closes or exits.
    const hanging = `require('node:worker_threads').parentPort.on('message', () => { for (;;) {} });`;
    const checkpoints = backgroundCheckpoints(db, file, { thread: hanging, stopWaitMs: 50 });
    try {
      for (let i = 0; i < BUSY_AFTER; i++) checkpoints.committed();
      expect(checkpoints.handedOff()).toBe(true);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      // Without the bounded wait this never settles, and the test times out.
      await checkpoints.stop();
      expect(checkpoints.handedOff()).toBe(false);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('count a statement that writes outside a transaction as a write transaction', async () => {
    // The MCP call log writes one multi-row INSERT per batch, outside any transaction: a flood of
    // tool calls writes nothing else, and its checkpoints must leave the event loop all the same.
    const dir = mkdtempSync(join(tmpdir(), 'svc-checkpoints-'));
    const db = openSqliteDatabase(join(dir, '.data', 'db.sqlite'), TABLE);
    try {
      // A statement that changes nothing commits nothing worth a checkpoint.
      for (let i = 0; i < BUSY_AFTER; i++) await db.run('UPDATE t SET n = 0 WHERE n < 0');
      expect(db.checkpoints?.handedOff()).toBe(false);
      for (let i = 0; i < BUSY_AFTER - 1; i++)
        await db.run('INSERT INTO t (n, pad) VALUES (?, ?)', [i, 'x'.repeat(6000)]);
      expect(db.checkpoints?.handedOff()).toBe(false);
      await db.run('INSERT INTO t (n, pad) VALUES (?, ?)', [BUSY_AFTER, 'x']);
      expect(db.checkpoints?.handedOff()).toBe(true);
      expect(autocheckpoint(db)).toBe(0);
      await vi.waitFor(() => expect(db.checkpoints?.runs()).toBeGreaterThan(0), { timeout: 10_000 });
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts the writes of one window only: a quiet server writing now and then keeps no thread', async () => {
    // A heartbeat every few seconds adds up to BUSY_AFTER writes within the hour; that is not busy.
    vi.useFakeTimers({ toFake: ['Date'] });
    const dir = mkdtempSync(join(tmpdir(), 'svc-checkpoints-'));
    const db = openSqliteDatabase(join(dir, '.data', 'db.sqlite'), TABLE);
    try {
      for (let i = 0; i < 3 * BUSY_AFTER; i++) {
        await db.run('INSERT INTO t (n, pad) VALUES (?, ?)', [i, 'x']);
        vi.setSystemTime(Date.now() + BUSY_WINDOW_MS / (BUSY_AFTER / 2));
      }
      expect(db.checkpoints?.handedOff()).toBe(false);
      // The same count within one window is busy.
      for (let i = 0; i < BUSY_AFTER; i++) await db.run('INSERT INTO t (n, pad) VALUES (?, ?)', [i, 'x']);
      expect(db.checkpoints?.handedOff()).toBe(true);
    } finally {
      vi.useRealTimers();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('start at once when told writes are coming, with no commit counted first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-checkpoints-'));
    const db = openSqliteDatabase(join(dir, '.data', 'db.sqlite'), TABLE);
    try {
      expect(db.checkpoints?.handedOff()).toBe(false);
      db.expectWrites();
      expect(db.checkpoints?.handedOff()).toBe(true);
      expect(autocheckpoint(db)).toBe(0);
      // Told again, or counted to busy afterwards: still the one thread.
      db.expectWrites();
      await writeTransactions(db, 0, BUSY_AFTER + 50);
      await vi.waitFor(() => expect(db.checkpoints?.runs()).toBeGreaterThan(0), { timeout: 10_000 });
      expect(await db.get('SELECT COUNT(*) AS c FROM t')).toEqual({ c: BUSY_AFTER + 50 });
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
    // Closed: checkpoints are the connection's own again, and a late hint starts nothing.
    expect(db.checkpoints?.handedOff()).toBe(false);
    db.expectWrites();
    expect(db.checkpoints?.handedOff()).toBe(false);
  });

  it('keeps none for an in-memory database', async () => {
    const db = openSqliteDatabase(':memory:', TABLE);
    expect(db.checkpoints).toBeNull();
    db.expectWrites(); // nothing to start
    await db.close();
  });
});
