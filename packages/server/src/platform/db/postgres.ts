import type pg from 'pg';
import { AppError } from '../errors.js';
import { quoteIdent } from './migrate.js';
import { pgDriver } from './pg-driver.js';
import { isStalePlan, PreparedStatements } from './postgres-statements.js';
import type { Row, SqlDatabase, SqlExecutor, SqlParams, SqlValue, TransactionOptions } from './sql.js';

/** Type OIDs whose text form we read as JS numbers, as SQLite hands them out. */
const INT8 = 20; // BIGINT columns, COUNT(*)
const NUMERIC = 1700; // SUM/AVG over BIGINT

function toNumber(text: string): number {
  const n = Number(text);
  // A silent loss of precision would corrupt ids and amounts; no svc value comes near 2^53.
  if (!Number.isSafeInteger(n) && Number.isInteger(n))
    throw new Error(`PostgreSQL returned ${text}, beyond what a JS number holds exactly.`);
  return n;
}

/**
 * The pool's own type parsers (not pg's process-wide table, which an embedding application may
 * rely on): BIGINT and NUMERIC come back as numbers; BYTEA stays a Buffer and BOOLEAN a boolean.
 */
const typesOf = (driver: typeof pg): pg.CustomTypesConfig => ({
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if ((oid === INT8 || oid === NUMERIC) && format !== 'binary') return toNumber;
    return driver.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
});

/**
 * The `pg` driver, loaded on the first PostgreSQL pool rather than with the server: a start on
 * SQLite never needs it, and loading it was about 50 ms of CPU of every start. Loaded once
 * (pg-driver.ts says how, and why it is safe whatever stat ran before it).
 */
export async function loadPg(): Promise<typeof pg> {
  return pgDriver();
}

function toParams(params: SqlParams | undefined): unknown[] {
  if (params === undefined) return [];
  if (!Array.isArray(params))
    throw new Error(
      'Named SQL parameters (@name with an object) are not supported on PostgreSQL; write `?` placeholders and pass an array.',
    );
  return (params as readonly SqlValue[]).map((v) => {
    if (typeof v === 'string' && v.includes('\u0000')) throw nulText();
    return v instanceof Uint8Array && !Buffer.isBuffer(v)
      ? Buffer.from(v.buffer, v.byteOffset, v.byteLength)
      : v;
  });
}

/**
 * PostgreSQL refuses U+0000 in text, and its error was a 500. The REST routes refuse it in their
 * input (http/nul-text.ts); this is the backstop for text that arrives another way (MCP arguments,
 * a value derived from input): a 400 that says why, before the statement is sent.
 */
const nulText = () =>
  new AppError(
    400,
    'INVALID_REQUEST',
    'A text value contains the character U+0000 (NUL), which cannot be stored. Remove it and send the request again.',
  );

/** The store-facing surface over `run`, which sends one statement (on the pool, or in a transaction). */
function executor(run: <T>(sql: string, values: unknown[]) => Promise<pg.QueryResult<T & Row>>): SqlExecutor {
  const query = <T>(sql: string, params?: SqlParams) => run<T>(sql, toParams(params));
  return {
    get: async <T>(sql: string, params?: SqlParams) => (await query<T>(sql, params)).rows[0] as T | undefined,
    all: async <T>(sql: string, params?: SqlParams) => (await query<T>(sql, params)).rows as T[],
    run: async (sql: string, params?: SqlParams) => ({ changes: (await query(sql, params)).rowCount ?? 0 }),
  };
}

/** Serialization failure and deadlock: PostgreSQL aborted this transaction so another could win. */
const RETRYABLE = new Set(['40001', '40P01']);
/**
 * Enough for a burst of concurrent confirms on one account, on a busy machine: with the pause
 * below, the last attempts wait up to 250 ms each, about 3 s in all. Past it the request is
 * answered `503 CONTENDED` with `Retry-After`, which the clients retry: never a 500, since
 * nothing is wrong but timing, and nothing was written.
 */
const MAX_ATTEMPTS = 16;

/** A serializable transaction runs again when it lost to another: the attempt was rolled back whole. */
const isRetryable = (err: unknown) =>
  typeof err === 'object' && err !== null && RETRYABLE.has((err as { code?: unknown }).code as string);

/** Full jitter, growing to 250 ms: the losers of one round spread out instead of colliding again. */
const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(250, 5 * 2 ** attempt)));

function contended(err: unknown): AppError {
  return new AppError(
    503,
    'CONTENDED',
    `Other requests changed the same data at once, and this one gave way ${MAX_ATTEMPTS} times. Nothing was written; retry (a confirm: with the same Idempotency-Key).`,
    { headers: { 'Retry-After': '1' }, cause: err },
  );
}

export interface PostgresOptions {
  url: string;
  /** The schema every connection of this pool works in (search_path). */
  schema: string;
  poolSize: number;
}

/** The pool every service database uses: its schema on every connection, our type parsers. */
export async function createPool(opts: PostgresOptions): Promise<pg.Pool> {
  const driver = await loadPg();
  const pool = new driver.Pool({
    connectionString: opts.url,
    max: opts.poolSize,
    types: typesOf(driver),
    // Queries are written as they are made, not after the previous one's answer: a transaction's
    // BEGIN goes out with its first statement (see PostgresDatabase.#once). Each query still has
    // its own Sync, so one that fails does not fail the unrelated queries behind it.
    pipeline: true,
    // A startup parameter, so the connection is in the schema before its first query.
    options: `-c search_path=${quoteIdent(opts.schema)}`,
    application_name: `svc-server ${opts.schema}`,
  });
  // An idle connection that the server drops (restart, idle timeout) must not crash the process.
  pool.on('error', () => undefined);
  // Nor one the pool has checked out between two statements of a transaction (a failover, an
  // administrator's pg_terminate_backend): pg emits 'error' on such a client, and pg-pool listens
  // only while a client is idle, so the error was uncaught. Ignored here, it comes back as the
  // failure of the client's next query, and the connection is released as broken.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}

export class PostgresDatabase implements SqlDatabase {
  readonly dialect = 'postgres' as const;
  readonly pool: pg.Pool;
  /** The prepared statements of this pool's connections, with their counters. */
  readonly statements: PreparedStatements;
  readonly #direct: SqlExecutor;

  constructor(pool: pg.Pool, opts: { prepare?: boolean } = {}) {
    this.pool = pool;
    this.statements = new PreparedStatements(opts.prepare ?? true);
    this.#direct = executor((sql, values) => this.#query(sql, values));
  }

  /**
   * One statement on a connection of the pool, as pool.query runs it (a connection whose
   * statement failed is discarded rather than trusted again), but on a connection we hold, so its
   * prepared statements are known. A statement refused as stale at Bind (isStalePlan) never ran,
   * and outside a transaction nothing else was in flight with it: it runs once more, unprepared,
   * which no schema change can make stale.
   */
  async #query<T>(sql: string, values: unknown[]): Promise<pg.QueryResult<T & Row>> {
    const client = await this.pool.connect();
    let failed: Error | undefined;
    try {
      return (await this.statements.run(client, sql, values, false)) as pg.QueryResult<T & Row>;
    } catch (err) {
      failed = err as Error;
      if (!isStalePlan(err)) throw err;
    } finally {
      client.release(failed);
    }
    return (await this.statements.retry(this.pool, sql, values)) as pg.QueryResult<T & Row>;
  }

  get<T = Row>(sql: string, params?: SqlParams) {
    return this.#direct.get<T>(sql, params);
  }

  all<T = Row>(sql: string, params?: SqlParams) {
    return this.#direct.all<T>(sql, params);
  }

  run(sql: string, params?: SqlParams) {
    return this.#direct.run(sql, params);
  }

  /** Nothing to get ready: the server checkpoints on its own, and the pool connects as needed. */
  expectWrites(): void {}

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
    if (opts.isolation !== 'serializable') return this.#once(fn, 'BEGIN', true);
    for (let attempt = 1; ; attempt++) {
      try {
        // Unprepared: see PreparedStatements.runOneOff for why a generic plan is no good here.
        return await this.#once(fn, 'BEGIN ISOLATION LEVEL SERIALIZABLE', false);
      } catch (err) {
        if (!isRetryable(err)) throw err;
        if (attempt >= MAX_ATTEMPTS) throw contended(err);
        await pause(attempt);
      }
    }
  }

  async #once<T>(fn: (tx: SqlExecutor) => Promise<T>, begin: string, prepare: boolean): Promise<T> {
    const client = await this.pool.connect();
    // A connection whose ROLLBACK failed is in an unknown state: it is destroyed, not reused.
    let broken: Error | undefined;
    try {
      // Sent, not awaited: the connection is pipelined (createPool), so `fn`'s first statement goes
      // out right behind BEGIN, one round trip for both instead of one each (the dispatcher's step
      // is a transaction of three statements, so BEGIN was a fifth of its round trips). Safe
      // because the server runs them in order: the statement is inside the transaction once BEGIN
      // has run. BEGIN fails only with the connection (then nothing behind it runs either); its
      // answer is still awaited, before COMMIT, so such a failure is never taken for success.
      const begun = client.query(begin);
      begun.catch(() => undefined);
      try {
        const result = await fn(executor(prepare ? this.#prepared(client, begin) : this.#oneOff(client)));
        await begun;
        const commit = await client.query('COMMIT');
        // PostgreSQL answers COMMIT of a transaction that a failed statement aborted with a silent
        // ROLLBACK (when `fn` caught that statement's error and went on): nothing was written.
        if (commit.command === 'ROLLBACK')
          throw new Error(
            'The transaction was rolled back: a statement in it failed and its error was caught.',
          );
        return result;
      } catch (err) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackErr) {
          broken = rollbackErr as Error;
        }
        throw err;
      }
    } finally {
      // A connection with a stale prepared statement goes too: its next transaction would fail the same way.
      client.release(
        broken ??
          (this.statements.isStale(client) ? new Error('A prepared statement went stale.') : undefined),
      );
    }
  }

  #oneOff(client: pg.PoolClient) {
    return (sql: string, values: unknown[]) => this.statements.runOneOff(client, sql, values) as never;
  }

  /**
   * A plain transaction's statements, prepared. When the server refuses the FIRST of them as stale
   * (another instance's migration, lost statements), nothing has run in the transaction yet: it is
   * rolled back and begun again, and that statement runs unprepared, as if the transaction had
   * started a moment later. `fn` is not run again (it is not promised to be safe twice); it just
   * gets its answer. The statements after it run unprepared too (the connection is stale, see
   * PreparedStatements.run). A stale plan at a LATER statement cannot be hidden so: what ran
   * before it is rolled back with it, so the error reaches the caller, having written nothing.
   * Only while it is the only statement sent: one that `fn` sent beside it (Promise.all) queued
   * behind it, met the aborted transaction and failed `fn`. ROLLBACK and BEGIN go as one query, so
   * no statement can run between them, outside any transaction.
   */
  #prepared(client: pg.PoolClient, begin: string) {
    let sent = 0;
    return async (sql: string, values: unknown[]) => {
      sent++;
      try {
        return (await this.statements.run(client, sql, values, true)) as never;
      } catch (err) {
        if (sent !== 1 || !isStalePlan(err)) throw err;
      }
      await client.query(`ROLLBACK; ${begin}`);
      return (await this.statements.retry(client, sql, values)) as never;
    };
  }

  async close(): Promise<void> {
    if (!this.pool.ended) await this.pool.end();
  }
}
