import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import type { PostgresDatabase } from '../../src/platform/db/postgres.js';
import type { Migration } from '../../src/platform/db/sql.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../helpers/database.js';
import { turnCountingProxy } from '../helpers/wire-turns.js';

const schema: Migration[] = [
  {
    id: 1,
    name: 'things',
    up: 'unused on PostgreSQL',
    postgres: 'CREATE TABLE things (id TEXT COLLATE "C" PRIMARY KEY, n BIGINT NOT NULL)',
  },
];

/**
 * A transaction's BEGIN goes to PostgreSQL with its first statement, not in a round trip of its
 * own: the webhook dispatcher's step is BEGIN, three statements and COMMIT, so BEGIN alone was a
 * fifth of its waits on the server (issue 20). Counted as turns on the wire, not timed. The
 * threat the second test covers: a statement sent early running outside the transaction.
 */
describe('a PostgreSQL transaction’s round trips', () => {
  let database: TestPostgresDatabase;
  let proxy: Awaited<ReturnType<typeof turnCountingProxy>>;
  let db: PostgresDatabase;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    const url = new URL(database.url);
    proxy = await turnCountingProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    db = (await openServiceDatabase({
      service: 'content',
      dataDir: '/nonexistent',
      databaseUrl: url.toString(),
      poolSize: 1,
      migrations: schema,
    })) as PostgresDatabase;
  });
  afterAll(async () => {
    await db?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('sends BEGIN with the first statement: two statements and COMMIT are three round trips', async () => {
    // Once first, so the statements are prepared and the connection is open before counting.
    const twoStatements = () =>
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO things (id, n) VALUES (?, ?)', [`t${Math.random()}`, 1]);
        return tx.get<{ n: number }>('SELECT COUNT(*)::int AS n FROM things');
      });
    await twoStatements();
    proxy.take();
    expect(await twoStatements()).toEqual({ n: 2 });
    expect(proxy.take()).toBe(3);
  });

  it('runs the statement sent with BEGIN inside the transaction: a rollback undoes it', async () => {
    const before = await db.get<{ n: number }>('SELECT COUNT(*)::int AS n FROM things');
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO things (id, n) VALUES (?, ?)', ['undone', 1]);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await db.get<{ n: number }>('SELECT COUNT(*)::int AS n FROM things')).toEqual(before);
  });
});
