import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import type { PostgresDatabase } from '../../src/platform/db/postgres.js';
import type { Migration } from '../../src/platform/db/sql.js';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '../helpers/database.js';

const schema: Migration[] = [
  {
    id: 1,
    name: 'things',
    up: 'unused on PostgreSQL',
    postgres: 'CREATE TABLE things (id TEXT COLLATE "C" PRIMARY KEY)',
  },
];

/**
 * The threat: PostgreSQL ends a connection (a restart, a failover, an administrator's
 * pg_terminate_backend, DROP DATABASE … WITH (FORCE)) while the pool has it checked out between
 * two statements of a transaction. pg emits 'error' on such a client, and pg-pool listens only
 * while a client is idle, so the error was uncaught and took the whole process down (seen in CI
 * as "terminating connection due to administrator command"). The transaction must fail instead,
 * and the next one run on a new connection.
 */
describe('a PostgreSQL connection ended while a transaction holds it', () => {
  let database: TestPostgresDatabase;
  let db: PostgresDatabase;
  let admin: pg.Client;
  beforeAll(async () => {
    database = await createTestPostgresDatabase();
    db = (await openServiceDatabase({
      service: 'content',
      dataDir: '/nonexistent',
      databaseUrl: database.url,
      poolSize: 1,
      migrations: schema,
    })) as PostgresDatabase;
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await db?.close();
    await database?.drop();
  });

  it('fails the transaction, not the process, and the next one runs', async () => {
    const uncaught: unknown[] = [];
    const note = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', note);
    try {
      const outcome = await db
        .transaction(async (tx) => {
          const { pid } = (await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid')) as {
            pid: number;
          };
          await admin.query('SELECT pg_terminate_backend($1)', [pid]);
          // Idle in the transaction while the server's FATAL arrives: no query is active on it.
          await new Promise((resolve) => setTimeout(resolve, 200));
          await tx.run("INSERT INTO things (id) VALUES ('a')");
        })
        .then(
          () => 'committed',
          (err: unknown) => err,
        );
      expect(outcome).toBeInstanceOf(Error);
      expect(uncaught).toEqual([]);
      await db.run("INSERT INTO things (id) VALUES ('b')");
      expect(await db.all('SELECT id FROM things')).toEqual([{ id: 'b' }]);
    } finally {
      process.off('uncaughtException', note);
    }
  });
});
