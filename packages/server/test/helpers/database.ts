import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openServiceDatabase, type ServiceName } from '../../src/platform/db/open.js';
import type { Migration, SqlDatabase } from '../../src/platform/db/sql.js';

/**
 * The engine the suite runs on: SVC_TEST_DATABASE=sqlite (the default) or postgres. The same
 * tests run on both; files named `*.postgres.test.ts` / `*.sqlite.test.ts` only on theirs
 * (vitest.config.ts picks them).
 */
export type TestEngine = 'sqlite' | 'postgres';

export const testEngine: TestEngine = (() => {
  const v = process.env.SVC_TEST_DATABASE || 'sqlite';
  if (v !== 'sqlite' && v !== 'postgres')
    throw new Error(`SVC_TEST_DATABASE must be sqlite or postgres (got '${v}').`);
  return v;
})();

/** A PostgreSQL server where tests may create and drop databases. */
export const testPostgresAdminUrl =
  process.env.SVC_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** Few connections per service: many test services share one PostgreSQL server at once. */
export const TEST_POOL_SIZE = 3;

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: testPostgresAdminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestPostgresDatabase {
  /** The URL to give SERVICE_DATABASE_URL (Config.databaseUrl). */
  url: string;
  /** Drops the database, cutting any connection still open to it. */
  drop(): Promise<void>;
}

/** A fresh, empty database on the test server, so each test service starts from nothing. */
export async function createTestPostgresDatabase(): Promise<TestPostgresDatabase> {
  const name = `svc_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(testPostgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

export interface TestDatabase {
  db: SqlDatabase;
  /** Another handle on the same database (a second instance, a second connection). */
  another(): Promise<SqlDatabase>;
  /** Closes every handle opened here and removes the data (SQLite file or PostgreSQL database). */
  close(): Promise<void>;
}

/**
 * A service database on the test engine, migrated, in `dataDir` (SQLite) or in a fresh
 * PostgreSQL database: for tests that work below HTTP (stores, races between connections).
 */
export async function openTestDatabase(
  service: ServiceName,
  migrations: readonly Migration[],
  dataDir: string,
): Promise<TestDatabase> {
  const pgDatabase = testEngine === 'postgres' ? await createTestPostgresDatabase() : undefined;
  const handles: SqlDatabase[] = [];
  const open = async () => {
    const db = await openServiceDatabase({
      service,
      dataDir,
      databaseUrl: pgDatabase?.url,
      poolSize: TEST_POOL_SIZE,
      migrations,
    });
    handles.push(db);
    return db;
  };
  const db = await open();
  return {
    db,
    another: open,
    async close() {
      await Promise.all(handles.map((h) => h.close()));
      await pgDatabase?.drop();
    },
  };
}
