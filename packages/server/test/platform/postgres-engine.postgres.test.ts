import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/platform/db/migrate.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import { createPool } from '../../src/platform/db/postgres.js';
import type { Migration, SqlDatabase } from '../../src/platform/db/sql.js';
import { AppError } from '../../src/platform/errors.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../helpers/database.js';

const schema: Migration[] = [
  {
    id: 1,
    name: 'things',
    up: 'unused on PostgreSQL',
    postgres: `CREATE TABLE things (
      id TEXT COLLATE "C" PRIMARY KEY, n BIGINT NOT NULL, done BOOLEAN NOT NULL, blob BYTEA)`,
  },
];

const open = (database: TestPostgresDatabase, migrations: readonly Migration[] = schema) =>
  openServiceDatabase({ service: 'content', dataDir: '/nonexistent', databaseUrl: database.url, migrations });

describe('the PostgreSQL executor', () => {
  let database: TestPostgresDatabase;
  let db: SqlDatabase;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    db = await open(database);
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  it('takes ? placeholders and hands back numbers, booleans and Buffers as SQLite stores expect', async () => {
    expect(db.dialect).toBe('postgres');
    const big = 2 ** 40;
    const { changes } = await db.run(
      'INSERT INTO things (id, n, done, blob) VALUES (?, ?, ?, ?), (?, ?, ?, ?)',
      ['a?', big, true, new Uint8Array([0, 1, 255]), 'b', 2, false, null],
    );
    expect(changes).toBe(2);
    expect(await db.get("SELECT id, n, done, blob FROM things WHERE id = ? AND id <> '?'", ['a?'])).toEqual({
      id: 'a?',
      n: big,
      done: true,
      blob: Buffer.from([0, 1, 255]),
    });
    expect(await db.get('SELECT COUNT(*) AS c, SUM(n) AS s FROM things')).toEqual({ c: 2, s: big + 2 });
    expect(await db.get('SELECT id FROM things WHERE id = ?', ['none'])).toBeUndefined();
  });

  it('leaves the process-wide pg type parsers alone (an embedding application may rely on them)', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      expect((await client.query('SELECT COUNT(*) AS c FROM content.things')).rows[0].c).toBe('2');
    } finally {
      await client.end();
    }
  });

  it('refuses named parameters with an error that says what to write instead', async () => {
    await expect(db.get('SELECT id FROM things WHERE id = @id', { id: 'a?' })).rejects.toThrow(
      /Named SQL parameters .* not supported on PostgreSQL/,
    );
  });

  it('rolls a transaction back whole when its function throws, and commits it otherwise', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO things (id, n, done) VALUES (?, ?, ?)', ['c', 3, false]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await db.get('SELECT id FROM things WHERE id = ?', ['c'])).toBeUndefined();
    await db.transaction((tx) =>
      tx.run('INSERT INTO things (id, n, done) VALUES (?, ?, ?)', ['c', 3, false]),
    );
    expect(await db.get('SELECT id FROM things WHERE id = ?', ['c'])).toEqual({ id: 'c' });
  });

  it('does not report a commit when a statement failed inside the transaction and its error was swallowed', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO things (id, n, done) VALUES (?, ?, ?)', ['d', 4, false]);
        await tx
          .run('INSERT INTO things (id, n, done) VALUES (?, ?, ?)', ['d', 4, false])
          .catch(() => undefined);
      }),
    ).rejects.toThrow(/rolled back/);
    expect(await db.get('SELECT id FROM things WHERE id = ?', ['d'])).toBeUndefined();
  });

  it('retries a serializable transaction that lost a write skew, so neither side is lost', async () => {
    await db.run('INSERT INTO things (id, n, done) VALUES (?, ?, ?)', ['counter', 0, false]);
    let attempts = 0;
    let arrived = 0;
    let bothRead!: () => void;
    const barrier = new Promise<void>((resolve) => {
      bothRead = resolve;
    });
    // Both read the counter before either writes: at SERIALIZABLE one must be aborted and re-run.
    const increment = () =>
      db.transaction(
        async (tx) => {
          attempts++;
          const row = await tx.get<{ n: number }>('SELECT n FROM things WHERE id = ?', ['counter']);
          if (++arrived === 2) bothRead();
          await Promise.race([barrier, new Promise((r) => setTimeout(r, 200))]);
          await tx.run('UPDATE things SET n = ? WHERE id = ?', [(row?.n ?? 0) + 1, 'counter']);
        },
        { isolation: 'serializable' },
      );
    await Promise.all([increment(), increment()]);
    expect(await db.get('SELECT n FROM things WHERE id = ?', ['counter'])).toEqual({ n: 2 });
    expect(attempts).toBeGreaterThan(2);
  });

  it('answers 503 CONTENDED with Retry-After, never a bare database error, when it loses every retry; nothing is written', async () => {
    let attempts = 0;
    const err = await db
      .transaction(
        async (tx) => {
          attempts++;
          await tx.run('INSERT INTO things (id, n, done) VALUES (?, ?, ?)', [`lost-${attempts}`, 0, false]);
          // What PostgreSQL raises for the victim of a serialization failure.
          throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        },
        { isolation: 'serializable' },
      )
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 503, code: 'CONTENDED', headers: { 'Retry-After': '1' } });
    expect(attempts).toBe(16);
    expect(await db.get("SELECT COUNT(*) AS c FROM things WHERE id LIKE 'lost-%'")).toEqual({ c: 0 });
  });
});

describe('migrating a PostgreSQL schema', () => {
  let database: TestPostgresDatabase;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
  });
  afterAll(() => database.drop());

  const counted: Migration[] = [
    ...schema,
    { id: 2, name: 'log', up: '', postgres: 'CREATE TABLE starts (n BIGINT); INSERT INTO starts VALUES (1)' },
  ];

  it('applies each step once when several instances start at once', async () => {
    const dbs = await Promise.all([1, 2, 3, 4].map(() => open(database, counted)));
    try {
      const [first] = dbs as [SqlDatabase];
      expect(await first.get('SELECT COUNT(*) AS n FROM starts')).toEqual({ n: 1 });
      expect(await first.all('SELECT id, name FROM schema_migrations ORDER BY id')).toEqual([
        { id: 1, name: 'things' },
        { id: 2, name: 'log' },
      ]);
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
    }
  });

  it('applies a new schema in one transaction and a fixed number of round trips, however many steps', async () => {
    const fresh = await createTestPostgresDatabase();
    const pool = await createPool({ url: fresh.url, schema: 'content', poolSize: 1 });
    const steps: Migration[] = Array.from({ length: 12 }, (_, i) => ({
      id: i + 1,
      name: `step ${i + 1}`,
      up: '',
      // A trailing line comment must not swallow what the batch appends.
      postgres: `CREATE TABLE t${i + 1} (n BIGINT) -- step ${i + 1}`,
    }));
    let queries = 0;
    const connect = pool.connect.bind(pool);
    const counting = (async () => {
      const client = await connect();
      const query = client.query.bind(client);
      client.query = ((...args: Parameters<typeof query>) => {
        queries++;
        return query(...args);
      }) as typeof client.query;
      return client;
    }) as typeof pool.connect;
    pool.connect = counting;
    // When the caller is told the steps are sent: how many statements had gone out by then.
    const sentAfter: number[] = [];
    try {
      await migratePostgres(pool, 'content', steps, 'content', () => sentAfter.push(queries));
      pool.connect = connect;
      // A first look (no schema yet); lock; schema, table and current step; the steps; unlock.
      // Step by step it was 4 per step.
      expect(queries).toBe(5);
      // Told once, as the batch of steps went out: only the unlock came after it.
      expect(sentAfter).toEqual([4]);
      const { rows } = await pool.query('SELECT COUNT(*) AS n FROM content.schema_migrations');
      expect(rows).toEqual([{ n: 12 }]);
      // Started again on it: one statement finds nothing pending, on the connection the pool
      // already has (kept, since nothing changed its search_path).
      queries = 0;
      pool.connect = counting;
      await migratePostgres(pool, 'content', steps, 'content', () => sentAfter.push(queries));
      pool.connect = connect;
      expect(queries).toBe(1);
      expect(sentAfter).toEqual([4]);
      expect(pool.totalCount).toBe(1);
      // A database a newer version wrote is still refused on that one statement.
      await expect(migratePostgres(pool, 'content', steps.slice(0, 11))).rejects.toThrow(
        /written by a newer svc-server \(schema 12, this version knows 11\)/,
      );
    } finally {
      await pool.end();
      await fresh.drop();
    }
  });

  it('keeps the steps before a failing one, and nothing of the failing one, naming it', async () => {
    const fresh = await createTestPostgresDatabase();
    const broken: Migration[] = [
      ...counted,
      {
        id: 3,
        name: 'half',
        up: '',
        postgres:
          'CREATE TABLE half_done (n BIGINT); INSERT INTO half_done VALUES (1); SELECT no_such_column FROM starts',
      },
    ];
    try {
      await expect(open(fresh, broken)).rejects.toThrow(
        /PostgreSQL schema content, migration 3 \(half\) failed: column "no_such_column" does not exist/,
      );
      const db = await open(fresh, counted);
      try {
        expect(await db.all('SELECT id FROM schema_migrations ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
        expect(await db.get("SELECT to_regclass('content.half_done') IS NULL AS gone")).toEqual({
          gone: true,
        });
      } finally {
        await db.close();
      }
    } finally {
      await fresh.drop();
    }
  });

  it('refuses a schema written by a newer svc-server', async () => {
    await expect(open(database, schema)).rejects.toThrow(
      /written by a newer svc-server \(schema 2, this version knows 1\)/,
    );
  });

  it('refuses to start when a migration has no PostgreSQL step, naming it', async () => {
    await expect(
      openServiceDatabase({
        service: 'commerce',
        dataDir: '/nonexistent',
        databaseUrl: database.url,
        // As a JavaScript caller could build it: the type requires the step, the check is at run time.
        migrations: [...schema, { id: 2, name: 'sqlite-only', up: 'SELECT 1' } as unknown as Migration],
      }),
    ).rejects.toThrow(/migration 2 \(sqlite-only\) has no PostgreSQL step/);
  });

  it('keeps each service in its own schema', async () => {
    const content = await open(database, counted);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        "SELECT table_schema, table_name FROM information_schema.tables WHERE table_name = 'things'",
      );
      expect(rows).toEqual([{ table_schema: 'content', table_name: 'things' }]);
    } finally {
      await client.end();
      await content.close();
    }
  }, 20_000);
});
