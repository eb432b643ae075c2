import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import type { PostgresDatabase } from '../../src/platform/db/postgres.js';
import { STATEMENTS_PER_CONNECTION, statementFor } from '../../src/platform/db/postgres-statements.js';
import type { Migration } from '../../src/platform/db/sql.js';
import { as, PROTOCOL, sandboxUser, startCommerce } from '../commerce/helpers.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../helpers/database.js';

// The executor's named prepared statements, on a real PostgreSQL server: what the server says it
// holds (pg_prepared_statements, per connection, with how often each ran), the executor's own
// counters, and what a store sees when the schema changes under a prepared statement.

const schema: Migration[] = [
  {
    id: 1,
    name: 'things',
    up: 'unused on PostgreSQL',
    postgres: 'CREATE TABLE things (id TEXT COLLATE "C" PRIMARY KEY, n BIGINT NOT NULL)',
  },
];

const BY_ID = 'SELECT * FROM things WHERE id = ?';

/** One connection, so every statement, and the look at pg_prepared_statements, runs on the same one. */
const openOne = async (database: TestPostgresDatabase, prepare?: boolean) =>
  (await openServiceDatabase({
    service: 'content',
    dataDir: '/nonexistent',
    databaseUrl: database.url,
    poolSize: 1,
    migrations: schema,
    ...(prepare === undefined ? {} : { prepare }),
  })) as PostgresDatabase;

/** What the server holds prepared on the (only) connection: each statement's text and runs. */
const preparedOn = async (db: PostgresDatabase) =>
  // pool.query, not the executor, so the look itself prepares nothing.
  (
    await db.pool.query<{ name: string; statement: string; runs: number; generic: number }>(
      'SELECT name, statement, generic_plans + custom_plans AS runs, generic_plans AS generic FROM pg_prepared_statements ORDER BY prepare_time',
    )
  ).rows;

describe('named prepared statements on PostgreSQL', () => {
  let database: TestPostgresDatabase;
  let db: PostgresDatabase;
  /** Another connection, as another instance (or a migration) would have. */
  let other: pg.Client;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    other = new pg.Client({ connectionString: database.url });
    await other.connect();
  });
  afterEach(async () => {
    await db?.close();
    await other.query('DROP TABLE IF EXISTS content.things; DELETE FROM content.schema_migrations');
  });
  afterAll(async () => {
    await other.end();
    await database.drop();
  });

  it('parses a statement once per connection, however often it runs, and PostgreSQL settles on one plan', async () => {
    db = await openOne(database);
    await db.run('INSERT INTO things (id, n) VALUES (?, ?), (?, ?)', ['a', 1, 'b', 2]);
    const before = { ...db.statements.counts };
    for (let i = 0; i < 10; i++)
      expect(await db.get(BY_ID, [i % 2 ? 'a' : 'b'])).toEqual(i % 2 ? { id: 'a', n: 1 } : { id: 'b', n: 2 });
    expect(db.statements.counts.prepared - before.prepared).toBe(1);
    expect(db.statements.counts.executed - before.executed).toBe(10);
    const held = (await preparedOn(db)).filter((s) => s.statement === statementFor(BY_ID).text);
    // The server's own count: one statement, run ten times, and from the sixth run on a generic
    // plan that is not planned again (the planning the hot paths saved).
    expect(held).toEqual([
      {
        name: statementFor(BY_ID).name,
        statement: statementFor(BY_ID).text,
        runs: 10,
        generic: expect.any(Number),
      },
    ]);
    expect(held[0]?.generic).toBeGreaterThan(0);
  });

  it('prepares nothing with the switch off (SERVICE_DATABASE_PREPARE=0), and reads the switch from the environment', async () => {
    expect(loadConfig({}).databasePrepare).toBe(true);
    expect(loadConfig({ SERVICE_DATABASE_PREPARE: '0' }).databasePrepare).toBe(false);
    expect(loadConfig({ SERVICE_DATABASE_PREPARE: 'false' }).databasePrepare).toBe(false);
    expect(() => loadConfig({ SERVICE_DATABASE_PREPARE: 'no' })).toThrow(
      /SERVICE_DATABASE_PREPARE must be one of 0, 1, true, false \(got 'no'\)/,
    );
    db = await openOne(database, false);
    await db.run('INSERT INTO things (id, n) VALUES (?, ?)', ['a', 1]);
    for (let i = 0; i < 5; i++) expect(await db.get(BY_ID, ['a'])).toEqual({ id: 'a', n: 1 });
    await db.transaction((tx) => tx.get(BY_ID, ['a']));
    expect(db.statements.counts).toMatchObject({ prepared: 0, executed: 0, unprepared: 7 });
    expect(await preparedOn(db)).toEqual([]);
  });

  it('answers from the new schema, with no error, when another connection alters a table under a prepared statement', async () => {
    db = await openOne(database);
    await db.run('INSERT INTO things (id, n) VALUES (?, ?)', ['a', 1]);
    expect(await db.get(BY_ID, ['a'])).toEqual({ id: 'a', n: 1 });
    // `SELECT *` fixed its result columns when prepared: PostgreSQL refuses to run it against the
    // new ones ("cached plan must not change result type") rather than answer in the old shape.
    await other.query("ALTER TABLE content.things ADD COLUMN label TEXT NOT NULL DEFAULT 'new'");
    expect(await db.get(BY_ID, ['a'])).toEqual({ id: 'a', n: 1, label: 'new' });
    expect(db.statements.counts.retried).toBe(1);
    // The connection that held the stale statement is gone; the next run prepares afresh.
    expect(await db.get(BY_ID, ['a'])).toEqual({ id: 'a', n: 1, label: 'new' });
    expect(db.statements.counts.retried).toBe(1);
    // A change of a column's type is refused the same way, and answered the same way.
    await other.query('ALTER TABLE content.things ALTER COLUMN n TYPE TEXT');
    expect(await db.get(BY_ID, ['a'])).toEqual({ id: 'a', n: '1', label: 'new' });
    expect(db.statements.counts.retried).toBe(2);
  });

  it('runs a statement again when its connection lost its prepared statements (DISCARD ALL, a transaction-mode pooler)', async () => {
    db = await openOne(database);
    await db.run('INSERT INTO things (id, n) VALUES (?, ?)', ['a', 1]);
    expect(await db.get(BY_ID, ['a'])).toEqual({ id: 'a', n: 1 });
    const client = await db.pool.connect();
    await client.query('DEALLOCATE ALL');
    client.release();
    expect(await db.get(BY_ID, ['a'])).toEqual({ id: 'a', n: 1 });
    expect(db.statements.counts.retried).toBe(1);
  });

  it('a serializable transaction reads the new schema at once (it is not prepared); a plain one whose FIRST statement went stale begins again and runs it unprepared, once', async () => {
    db = await openOne(database);
    await db.run('INSERT INTO things (id, n) VALUES (?, ?)', ['a', 1]);
    let runs = 0;
    const bump = (isolation?: 'serializable') =>
      db.transaction(
        async (tx) => {
          runs++;
          const row = await tx.get<{ n: number }>(BY_ID, ['a']);
          await tx.run('UPDATE things SET n = ? WHERE id = ?', [Number(row?.n) + 1, 'a']);
          // Read again in the shape the first read fixed: stale as well, unless the connection
          // stopped preparing once its first statement went stale.
          return { row, again: await tx.get(BY_ID, ['a']) };
        },
        isolation ? { isolation } : {},
      );
    await bump();
    await other.query("ALTER TABLE content.things ADD COLUMN label TEXT NOT NULL DEFAULT 'new'");
    expect((await bump('serializable')).row).toEqual({ id: 'a', n: 2, label: 'new' });
    // Make the plain transaction's statements stale again (the serializable one prepared none).
    await other.query('ALTER TABLE content.things ADD COLUMN note TEXT');
    const { retried, unprepared } = db.statements.counts;
    runs = 0;
    // PostgreSQL refused the first statement at Bind, before anything ran in the transaction: it
    // began again and the statement ran unprepared; the function ran once, and wrote once.
    expect(await bump()).toEqual({
      row: { id: 'a', n: 3, label: 'new', note: null },
      again: { id: 'a', n: 4, label: 'new', note: null },
    });
    expect(runs).toBe(1);
    expect(db.statements.counts.retried).toBe(retried + 1);
    // The statements after it ran unprepared on the stale connection.
    expect(db.statements.counts.unprepared).toBe(unprepared + 2);
    // The stale connection was discarded: the next transaction prepares afresh, and nothing is retried.
    expect((await bump()).row).toEqual({ id: 'a', n: 4, label: 'new', note: null });
    expect(db.statements.counts.retried).toBe(retried + 1);
  });

  it('a plain transaction whose statement went stale AFTER another ran fails, writing nothing, on a connection then discarded', async () => {
    db = await openOne(database);
    await db.run('INSERT INTO things (id, n) VALUES (?, ?)', ['a', 1]);
    const bump = () =>
      db.transaction(async (tx) => {
        // The result type of `SELECT n` does not change with a new column: this one stays good.
        const row = await tx.get<{ n: number }>('SELECT n FROM things WHERE id = ?', ['a']);
        await tx.run('UPDATE things SET n = ? WHERE id = ?', [Number(row?.n) + 1, 'a']);
        return tx.get(BY_ID, ['a']);
      });
    await bump();
    await other.query("ALTER TABLE content.things ADD COLUMN label TEXT NOT NULL DEFAULT 'new'");
    // The UPDATE before it would be lost with a ROLLBACK, and `fn` is not promised to be safe to
    // run twice: the error reaches the caller, and PostgreSQL rolled the UPDATE back.
    await expect(bump()).rejects.toMatchObject({ code: '0A000' });
    expect(await db.get<{ n: number }>('SELECT n FROM things WHERE id = ?', ['a'])).toEqual({ n: 2 });
    expect(await bump()).toEqual({ id: 'a', n: 3, label: 'new' });
  });

  it('does not begin again when the function sent another statement beside the stale first one', async () => {
    db = await openOne(database);
    await db.run('INSERT INTO things (id, n) VALUES (?, ?)', ['a', 1]);
    const both = () =>
      db.transaction((tx) =>
        Promise.all([tx.get(BY_ID, ['a']), tx.run('UPDATE things SET n = n + 1 WHERE id = ?', ['a'])]),
      );
    await both();
    const client = await db.pool.connect();
    await client.query('DEALLOCATE ALL');
    client.release();
    // The UPDATE queued behind the refused SELECT met the aborted transaction; beginning again
    // would leave it out, so the transaction fails whole.
    await expect(both()).rejects.toThrow();
    expect(await db.get<{ n: number }>('SELECT n FROM things WHERE id = ?', ['a'])).toEqual({ n: 2 });
  });

  it('runs a serializable transaction unprepared, so its predicate locks come from plans made for its values', async () => {
    db = await openOne(database);
    await db.run('INSERT INTO things (id, n) VALUES (?, ?)', ['s', 1]);
    const { prepared, unprepared } = db.statements.counts;
    const IN_SERIALIZABLE = 'SELECT n FROM things WHERE id = ? AND n >= ?';
    for (let i = 0; i < 8; i++)
      await db.transaction(async (tx) => tx.get(IN_SERIALIZABLE, ['s', 0]), { isolation: 'serializable' });
    expect(db.statements.counts.prepared).toBe(prepared);
    expect(db.statements.counts.unprepared).toBe(unprepared + 8);
    expect((await preparedOn(db)).map((s) => s.statement)).not.toContain(statementFor(IN_SERIALIZABLE).text);
    // A plain transaction still prepares.
    await db.transaction(async (tx) => tx.get(IN_SERIALIZABLE, ['s', 0]));
    expect((await preparedOn(db)).map((s) => s.statement)).toContain(statementFor(IN_SERIALIZABLE).text);
  });

  it(`keeps at most ${STATEMENTS_PER_CONNECTION} statements on a connection, however many distinct texts run`, async () => {
    db = await openOne(database);
    const extra = 40;
    const text = (i: number) => `SELECT CAST(? AS INTEGER) + ${i} AS n`;
    for (let i = 0; i < STATEMENTS_PER_CONNECTION + extra; i++)
      expect(await db.get(text(i), [1])).toEqual({ n: i + 1 });
    expect((await preparedOn(db)).length).toBe(STATEMENTS_PER_CONNECTION);
    expect(db.statements.counts.deallocated).toBe(extra);
    // The least recently used went first; one of those runs again, prepared anew (pg must not
    // believe it still parsed), and still answers right.
    expect((await preparedOn(db)).some((s) => s.name === statementFor(text(0)).name)).toBe(false);
    expect(await db.get(text(0), [1])).toEqual({ n: 1 });
    expect((await preparedOn(db)).some((s) => s.name === statementFor(text(0)).name)).toBe(true);
    // In a transaction nothing is deallocated (a failed DEALLOCATE would abort it): a new text
    // runs unprepared.
    const unprepared = db.statements.counts.unprepared;
    expect(await db.transaction((tx) => tx.get(text(-1), [1]))).toEqual({ n: 0 });
    expect(db.statements.counts.unprepared).toBe(unprepared + 1);
    expect((await preparedOn(db)).length).toBe(STATEMENTS_PER_CONNECTION);
  });
});

describe('writes over HTTP when every connection has lost its prepared statements', () => {
  it('creates and cancels a checkout (plain transactions) with no error, as through a transaction-mode pooler', async () => {
    const c = await startCommerce();
    try {
      const { call } = await sandboxUser(c.svc, c.sandboxKey);
      const db = c.svc.handle.db as PostgresDatabase;
      for (let i = 0; i < 3; i++)
        expect((await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/warm-${i}` })).status).toBe(
          201,
        );
      // From here every connection the pool hands out has lost what it prepared, as behind a
      // transaction-mode pooler (another server connection each time) or after DISCARD ALL: the
      // first statement of each transaction is refused at Bind.
      const connect = db.pool.connect.bind(db.pool) as () => Promise<pg.PoolClient>;
      const losing = async () => {
        const client = await connect();
        await client.query('DEALLOCATE ALL');
        return client;
      };
      // pool.query (the unprepared retry) asks with a callback.
      type Done = (err: Error | undefined, client?: pg.PoolClient, release?: () => void) => void;
      Object.assign(db.pool, {
        connect: (done?: Done) =>
          done
            ? losing().then(
                (client) => done(undefined, client, client.release),
                (err: Error) => done(err),
              )
            : losing(),
      });
      const { retried } = db.statements.counts;
      const made = await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/stale-mug` });
      expect(made.status).toBe(201);
      const canceled = await call('POST', `/v1/checkouts/${made.body.id}/cancel`);
      expect(canceled.status).toBe(200);
      expect(canceled.body.status).toBe('canceled');
      expect(db.statements.counts.retried).toBeGreaterThan(retried);
      // Written once each: one checkout made, and it is canceled.
      Object.assign(db.pool, { connect });
      const read = await call('GET', `/v1/checkouts/${made.body.id}`);
      expect(read.body.status).toBe('canceled');
      expect(
        await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM checkouts WHERE product_url = ?', [
          `${PROTOCOL}/stale-mug`,
        ]),
      ).toEqual({ n: 1 });
    } finally {
      await c.close();
    }
  });
});

describe('a checkout read over HTTP on PostgreSQL', () => {
  it('prepares its statements on the first reads and only executes them after', async () => {
    const c = await startCommerce();
    try {
      const { call } = await sandboxUser(c.svc, c.sandboxKey);
      const made = await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/prepared-mug` });
      expect(made.status).toBe(201);
      const db = c.svc.handle.db as PostgresDatabase;
      const read = () => call('GET', `/v1/checkouts/${made.body.id}`);
      // The read's own statements, told apart from the background work that shares the pool (the
      // key cache's epoch reads and lease, the heartbeat, the dispatcher's polls), each with the
      // connection it ran on. Which of the pool's connections (3 in tests) a read gets depends on
      // what the background work holds at that moment, and on a loaded machine a connection may
      // be opened afresh: so the rule is checked per connection, not for the pool as a whole.
      const readTables = /\b(checkouts|user_tokens)\b/;
      const ran: Array<{ client: object; sql: string; prepared: boolean }> = [];
      const run = db.statements.run.bind(db.statements);
      db.statements.run = (client, sql, values, inTransaction) => {
        const preparedBefore = db.statements.counts.prepared;
        // run() counts a new preparation before its first await, so this reads this call's own.
        const result = run(client, sql, values, inTransaction);
        if (readTables.test(sql))
          ran.push({ client, sql, prepared: db.statements.counts.prepared > preparedBefore });
        return result;
      };
      const reads = 30;
      try {
        for (let i = 0; i < reads; i++) expect((await read()).body.id).toBe(made.body.id);
      } finally {
        db.statements.run = run;
      }
      // Once a statement has run on a connection, it is only executed there, never prepared again
      // (its first run here may have been prepared, or the checkout's creation prepared it).
      const seen = new Map<object, Set<string>>();
      const preparedAgain = ran.flatMap(({ client, sql, prepared }) => {
        const on = seen.get(client) ?? new Set<string>();
        seen.set(client, on);
        const again = on.has(sql) && prepared;
        on.add(sql);
        return again ? [sql] : [];
      });
      expect(preparedAgain).toEqual([]);
      // Two statements a read: the user token and the row. The key comes from the key cache
      // (platform/key-cache.ts, commerce migration 16) and costs no statement while it holds.
      expect(ran.length).toBeGreaterThanOrEqual(reads * 2);
      // Most runs were executions of what a connection already held: at most two preparations
      // for each connection the reads used.
      expect(ran.filter((r) => r.prepared).length).toBeLessThanOrEqual(2 * seen.size);
      expect(seen.size).toBeLessThan(reads / 3);
      // A bad key is still refused on the next request: preparing keeps no answer, only the plan.
      expect((await as(c.svc, 'sk_test_nope')('GET', `/v1/checkouts/${made.body.id}`)).status).toBe(401);
    } finally {
      await c.close();
    }
  });
});
