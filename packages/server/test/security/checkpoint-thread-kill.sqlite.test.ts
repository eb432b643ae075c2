// Outside attack on SQLite's WAL checkpoints in a thread of their own
// (platform/db/sqlite-checkpoints.ts), on an operator's bad day: a data directory whose path has
// spaces, dots, `%`, `#`, `?` and non-ASCII letters (the thread opens the file by that path), and
// kill -9 of the built server while it is writing with the thread running. Every write the server
// acknowledged must be there after the restart; the thread must really checkpoint that path.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openSqliteDatabase } from '../../src/platform/db/sqlite.js';
import { BUSY_AFTER } from '../../src/platform/db/sqlite-checkpoints.js';
import { type BuiltServer, killHard, startBuilt } from '../helpers/built-server.js';
import { cli } from '../helpers/cli.js';
import { api } from '../helpers/start.js';

const ODD = 'data dir.d %20 #1 ?x Ünïcödé 日本';

const start = (dataDir: string) => startBuilt('content', { SERVICE_DATA_DIR: dataDir }, 'ignore');

describe('WAL checkpoint thread: odd data directory paths and kill -9', () => {
  let base: string;
  let server: BuiltServer | null = null;

  beforeAll(() => {
    if (!existsSync(cli))
      throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
    base = mkdtempSync(join(tmpdir(), 'svc-ckpt-'));
  });
  afterAll(async () => {
    if (server) await killHard(server);
    rmSync(base, { recursive: true, force: true });
  });

  it('the thread opens and checkpoints a database under a path with spaces, %, #, ? and unicode', async () => {
    const dir = join(base, ODD);
    mkdirSync(dir, { recursive: true });
    const db = openSqliteDatabase(join(dir, 'db.sqlite'), [
      { id: 1, name: 't', up: 'CREATE TABLE t (n INTEGER, pad TEXT)', postgres: 'CREATE TABLE t (n BIGINT)' },
    ]);
    try {
      for (let i = 0; i < BUSY_AFTER + 50; i++)
        await db.transaction((tx) => tx.run('INSERT INTO t (n, pad) VALUES (?, ?)', [i, 'x'.repeat(6000)]));
      expect(db.checkpoints?.handedOff()).toBe(true);
      // A thread that could not open the path would have exited and handed checkpoints back.
      await vi.waitFor(() => expect(db.checkpoints?.runs()).toBeGreaterThan(0), { timeout: 10_000 });
      expect(db.checkpoints?.handedOff()).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('keeps every acknowledged write across kill -9 while the thread checkpoints', async () => {
    const dataDir = join(base, 'server', ODD);
    mkdirSync(dataDir, { recursive: true });
    server = await start(dataDir);
    const brand = await api(server.url, 'POST', '/v1/brands', { body: { name: 'Kill brand' } });
    expect(brand.status).toBe(201);
    const brandId = brand.body.id as string;
    const acknowledged: string[] = [];
    const write = async (i: number) => {
      const res = await api((server as BuiltServer).url, 'POST', '/v1/ideas', {
        body: { brand_id: brandId, title: `Idea ${i}`, notes: 'n'.repeat(3000) },
      });
      if (res.status === 201) acknowledged.push(res.body.id as string);
    };
    // Past BUSY_AFTER commits the thread runs; then writes in flight when the process dies.
    for (let i = 0; i < BUSY_AFTER + 100; i++) await write(i);
    const inFlight = Array.from({ length: 200 }, (_, i) => write(1000 + i).catch(() => undefined));
    await vi.waitFor(() => expect(acknowledged.length).toBeGreaterThan(BUSY_AFTER + 150), {
      timeout: 30_000,
    });
    await killHard(server);
    await Promise.all(inFlight);
    const count = acknowledged.length;
    expect(count).toBeGreaterThan(BUSY_AFTER + 150);

    server = await start(dataDir);
    const missing: string[] = [];
    for (const id of acknowledged)
      if ((await api(server.url, 'GET', `/v1/ideas/${id}`)).status !== 200) missing.push(id);
    expect(missing).toEqual([]);
    await killHard(server);
    server = null;
  }, 120_000);
});
