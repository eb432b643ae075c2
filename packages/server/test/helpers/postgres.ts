import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Throwaway PostgreSQL databases for the `*.postgres.test.ts` files: each test file makes its
 * own and drops them after, so files can run side by side on one server. The admin URL is
 * SVC_TEST_POSTGRES_URL (default: the `postgres` role on 127.0.0.1:5432, trust auth).
 */
export const ADMIN_URL = process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function asAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect().catch((err: Error) => {
    throw new Error(
      `No PostgreSQL at SVC_TEST_POSTGRES_URL (${ADMIN_URL}): ${err.message}. This suite needs one.`,
    );
  });
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh empty database; returns its URL. */
export async function createTestDatabase(created: string[], prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await asAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  created.push(name);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropTestDatabases(created: string[]): Promise<void> {
  await asAdmin(async (c) => {
    for (const name of created.splice(0)) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
}
