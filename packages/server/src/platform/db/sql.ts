import type Database from 'better-sqlite3';

/**
 * What stores may bind. Booleans are welcome on both engines: PostgreSQL takes them as `boolean`,
 * the SQLite executor binds them as 1/0 (SQLite has no boolean type).
 */
export type SqlValue = string | number | bigint | boolean | null | Uint8Array;
/**
 * Positional parameters for `?` placeholders. Named parameters (`@name` with an object) work only
 * on SQLite; the PostgreSQL executor refuses them with an error, so stores use `?`.
 */
export type SqlParams = readonly SqlValue[] | Record<string, SqlValue>;
export type Row = Record<string, unknown>;

/**
 * The narrow surface stores are written against, the same on both engines: `?` placeholders,
 * portable SQL, typed records decoded at the store's boundary.
 */
export interface SqlExecutor {
  get<T = Row>(sql: string, params?: SqlParams): Promise<T | undefined>;
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<{ changes: number }>;
}

export interface TransactionOptions {
  /**
   * `serializable`: PostgreSQL runs the transaction at SERIALIZABLE and, when it is chosen as the
   * victim of a serialization failure or a deadlock, runs `fn` again (a bounded number of times).
   * So `fn` must be pure database work: no network calls, no side effects outside `tx`.
   * SQLite ignores it: its writers are already serial.
   */
  isolation?: 'serializable';
}

export type Dialect = 'sqlite' | 'postgres';

export interface SqlDatabase extends SqlExecutor {
  readonly dialect: Dialect;
  /**
   * Runs `fn` in one transaction on one connection. Only store calls belong inside `fn`; no
   * network I/O. On SQLite every other query on this database waits until it settles, so work
   * from other requests cannot slip into (or be rolled back with) it.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * A hint that a steady stream of write transactions starts now (the webhook dispatcher's first
   * delivery), so the database gets ready for it before the load rather than during it. SQLite
   * hands its WAL checkpoints to their thread at once (sqlite-checkpoints.ts); PostgreSQL has
   * nothing to do. Safe to call any number of times.
   */
  expectWrites(): void;
  close(): Promise<void>;
}

export interface Migration {
  id: number;
  name: string;
  /**
   * SQL, or a function for migrations that must look at the data first (for example to settle
   * duplicates before a unique index). `log` tells the operator what a migration changed in their
   * data; it goes to the service's logger when one is given.
   */
  up: string | ((db: Database.Database, log: (message: string) => void) => void);
  /**
   * The same step for PostgreSQL, under the same number, so both engines reach the same schema
   * (test/platform/schema-parity.postgres.test.ts compares them). Data fix-ups that only SQLite
   * deployments can need (they predate PostgreSQL support) have no PostgreSQL counterpart beyond
   * the DDL.
   */
  postgres: string;
}

/** Connections per service and process when SERVICE_DATABASE_POOL_SIZE is not set. */
export const DEFAULT_POOL_SIZE = 10;
