// `@svc/server/testing`: the test engine for every suite in this workspace that starts a server
// (the server's own, the client packages' integration tests, the examples). The same tests run on
// SQLite and on PostgreSQL; SVC_TEST_DATABASE picks which, and on PostgreSQL each test service
// gets a fresh database of its own, dropped afterwards, so no test sees another's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Config } from './config.js';

/** SVC_TEST_DATABASE=sqlite (the default) or postgres. */
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

export interface TestEngineDatabase {
  /** Spread into testConfig(): nothing on SQLite (the data directory holds the files). */
  config: Partial<Pick<Config, 'databaseUrl' | 'databasePoolSize'>>;
  /** The same as environment variables, for a server started as a process (`svc-server start`). */
  env: Record<string, string>;
  /** Removes the PostgreSQL database (nothing to do on SQLite). */
  drop(): Promise<void>;
}

/**
 * Where one test service keeps its data on the test engine: its data directory on SQLite, a
 * fresh PostgreSQL database on postgres. Call drop() after the service has stopped.
 */
export async function createTestEngineDatabase(): Promise<TestEngineDatabase> {
  if (testEngine === 'sqlite') return { config: {}, env: {}, drop: async () => {} };
  const database = await createTestPostgresDatabase();
  return {
    config: { databaseUrl: database.url, databasePoolSize: TEST_POOL_SIZE },
    env: { SERVICE_DATABASE_URL: database.url, SERVICE_DATABASE_POOL_SIZE: String(TEST_POOL_SIZE) },
    drop: database.drop,
  };
}
