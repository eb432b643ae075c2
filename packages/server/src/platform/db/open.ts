import { join } from 'node:path';
import { migratePostgres } from './migrate.js';
import { createPool, PostgresDatabase } from './postgres.js';
import { DEFAULT_POOL_SIZE, type Migration, type SqlDatabase } from './sql.js';
import { openSqliteDatabase } from './sqlite.js';

export type ServiceName = 'content' | 'commerce';

export interface OpenServiceDatabase {
  service: ServiceName;
  /** SQLite: the service's file is `<dataDir>/<service>.sqlite`. */
  dataDir: string;
  /** `postgres://…` puts the service in schema `<service>` of that database; unset means SQLite. */
  databaseUrl?: string | undefined;
  poolSize?: number | undefined;
  /**
   * PostgreSQL: send statements as named prepared statements (SERVICE_DATABASE_PREPARE; on when
   * left out). Off, each is a one-off, as a transaction-mode pooler without prepared-statement
   * support needs.
   */
  prepare?: boolean | undefined;
  migrations: readonly Migration[];
  /** Hears what a migration changed in existing data; stderr without one. */
  log?: ((message: string) => void) | undefined;
  /**
   * PostgreSQL: told when a first start's pending migrations have been sent, so what is left of
   * the open is the server's own work (about 120 ms of DDL for content) and the caller can do
   * its own CPU work beside it. A caller that starts heavy synchronous work (loading the
   * services' code) before this holds back the round trips that lead up to the batch.
   */
  migrationsSent?: (() => void) | undefined;
}

/**
 * Opens a service's database on the configured engine and brings its schema up to date.
 * PostgreSQL: one database for both services, one schema each (`content`, `commerce`), so their
 * tables (both have `api_keys`, `idempotency_keys`, …) never meet and each can be dumped alone.
 */
export async function openServiceDatabase(opts: OpenServiceDatabase): Promise<SqlDatabase> {
  if (!opts.databaseUrl) {
    return openSqliteDatabase(
      join(opts.dataDir, `${opts.service}.sqlite`),
      opts.migrations,
      opts.log ? { log: opts.log } : {},
    );
  }
  const pool = await createPool({
    url: opts.databaseUrl,
    schema: opts.service,
    poolSize: opts.poolSize ?? DEFAULT_POOL_SIZE,
  });
  try {
    await migratePostgres(
      pool,
      opts.service,
      opts.migrations,
      `PostgreSQL schema ${opts.service}`,
      opts.migrationsSent,
    );
  } catch (err) {
    await pool.end();
    throw err;
  }
  return new PostgresDatabase(pool, { prepare: opts.prepare ?? true });
}

/** The settings a service's database opens with (a slice of the server's Config). */
export interface DatabaseSettings {
  dataDir: string;
  databaseUrl?: string | undefined;
  databasePoolSize?: number | undefined;
  databasePrepare?: boolean | undefined;
}

/**
 * openServiceDatabase from the server's settings: the one mapping of config fields to open
 * options, shared by both services' `db/open.ts` (each keeps its own module so the CLI can open
 * the databases before it loads the services' code).
 */
export const openConfiguredDatabase = (
  service: ServiceName,
  migrations: readonly Migration[],
  config: DatabaseSettings,
  log?: (message: string) => void,
  migrationsSent?: () => void,
): Promise<SqlDatabase> =>
  openServiceDatabase({
    service,
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    prepare: config.databasePrepare,
    migrations,
    log,
    migrationsSent,
  });

/** Is this URL one openServiceDatabase puts on PostgreSQL? */
export const isPostgresUrl = (url: string) => /^postgres(ql)?:\/\//i.test(url);
