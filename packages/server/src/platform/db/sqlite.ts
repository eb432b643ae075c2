import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrateSqlite } from './migrate.js';
import type {
  Migration,
  Row,
  SqlDatabase,
  SqlExecutor,
  SqlParams,
  SqlValue,
  TransactionOptions,
} from './sql.js';
import { backgroundCheckpoints, type Checkpointer } from './sqlite-checkpoints.js';
import { type SqliteStatementCounts, SqliteStatements } from './sqlite-statements.js';

/** A SQLite database; `raw` is for SQLite-only work (migrations' data fix-ups, benchmarks, SQLite tests). */
export interface SqliteDatabase extends SqlDatabase {
  readonly dialect: 'sqlite';
  readonly raw: Database.Database;
  /** WAL checkpoints in a thread of their own once the database is busy (none for `:memory:`). */
  readonly checkpoints: Pick<Checkpointer, 'runs' | 'handedOff'> | null;
  /** The connection's prepared statements, kept up to a bound (sqlite-statements.ts). */
  readonly statements: SqliteStatementCounts;
}

export function openSqliteDatabase(
  file: string,
  migrations: readonly Migration[],
  opts: { log?: (message: string) => void } = {},
): SqliteDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // Lets `svc-server keys create` write while a running server holds the file, and a second
  // instance starting beside a running one wait for its migrations.
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  try {
    migrateSqlite(db, migrations, file, opts.log);
  } catch (err) {
    db.close();
    throw err;
  }
  // From here on a busy database is waited for asynchronously (see withBusyRetry): SQLite's own
  // wait blocks the event loop, so another instance in this same process that holds the write
  // lock across an await could never finish and let go.
  db.pragma(`busy_timeout = ${BUSY_SPIN_MS}`);
  return new GatedDatabase(db, file === ':memory:' ? null : backgroundCheckpoints(db, file));
}

/** How long SQLite itself spins on a locked database before we wait asynchronously instead. */
const BUSY_SPIN_MS = 20;
/** How long a write waits in all for another instance's write transaction before it gives up. */
const BUSY_WAIT_MS = 10_000;

const isBusy = (err: unknown) =>
  err instanceof Error && 'code' in err && (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED');

/**
 * Runs `fn` (a write, or BEGIN IMMEDIATE) and, while another connection (another instance, or
 * the CLI) holds the write lock, tries again after a short asynchronous pause. Real time, not the
 * injected clock: this is the engine's wait, not domain time.
 */
async function withBusyRetry<T>(
  fn: () => T,
  gate: () => Promise<void> | null = () => null,
  /** When the caller's own first attempt met the lock: the wait counts from then, and starts with a pause. */
  busySince?: number,
): Promise<T> {
  const deadline = (busySince ?? Date.now()) + BUSY_WAIT_MS;
  let pause = 2;
  if (busySince !== undefined) {
    await backOff(pause);
    pause *= 2;
  }
  for (; ; pause = Math.min(pause * 2, 50)) {
    // Re-checked after every wake-up, in the frame that runs `fn`: nothing can take the gate between.
    for (let g = gate(); g; g = gate()) await g;
    try {
      return fn();
    } catch (err) {
      if (!isBusy(err) || Date.now() > deadline) throw err;
    }
    await backOff(pause);
  }
}

const backOff = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms + Math.random() * ms));

/** SQLite has no boolean type: stores may pass JS booleans to both engines, SQLite stores 1/0. */
const toSqlite = (v: SqlValue) => (typeof v === 'boolean' ? (v ? 1 : 0) : v);

function bind(params?: SqlParams): unknown[] {
  if (params === undefined) return [];
  if (Array.isArray(params)) return (params as readonly SqlValue[]).map(toSqlite);
  const named: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) named[k] = toSqlite(v);
  return [named];
}

/** The three statements, run at once on the connection; both executors below are built on them. */
function statements(cache: SqliteStatements) {
  return {
    get: <T>(sql: string, params?: SqlParams) => cache.get(sql).get(...bind(params)) as T | undefined,
    all: <T>(sql: string, params?: SqlParams) => cache.get(sql).all(...bind(params)) as T[],
    run: (sql: string, params?: SqlParams) => ({ changes: cache.get(sql).run(...bind(params)).changes }),
  };
}

/** Inside a transaction this process holds: nothing else can interleave, so no waiting. */
function directExecutor(cache: SqliteStatements): SqlExecutor {
  const s = statements(cache);
  return {
    get: async (sql, params) => s.get(sql, params),
    all: async (sql, params) => s.all(sql, params),
    run: async (sql, params) => s.run(sql, params),
  };
}

class GatedDatabase implements SqliteDatabase {
  readonly dialect = 'sqlite' as const;
  readonly raw: Database.Database;
  readonly checkpoints: Checkpointer | null;
  readonly statements: SqliteStatements;
  readonly #direct: SqlExecutor;
  readonly #statements: ReturnType<typeof statements>;
  /** Settles when the transaction in progress (if any) ends. */
  #gate: Promise<void> | null = null;

  constructor(db: Database.Database, checkpoints: Checkpointer | null) {
    this.raw = db;
    this.checkpoints = checkpoints;
    this.statements = new SqliteStatements(db);
    this.#direct = directExecutor(this.statements);
    this.#statements = statements(this.statements);
  }

  /**
   * Runs one statement outside any transaction. It may meet another instance's write lock (an
   * UPDATE … RETURNING read through `get` writes too): it then waits and tries again, re-checking
   * the gate each time so it never lands inside a transaction this process started meanwhile.
   *
   * The first attempt runs here, synchronously, when no transaction of this process is open: it
   * is the attempt `withBusyRetry` would make at once, in the same frame, so nothing changes but
   * the cost of an `async` function and its loop on every statement (three per authenticated
   * GET). Only a busy database (SQLITE_BUSY/LOCKED after SQLite's own short spin) goes on to the
   * asynchronous wait. Failures still arrive as a rejected promise, never as a throw, so callers
   * see the same contract either way.
   */
  #now<T>(fn: () => T): Promise<T> {
    if (this.#gate) return withBusyRetry(fn, () => this.#gate);
    try {
      return Promise.resolve(fn());
    } catch (err) {
      if (!isBusy(err)) return Promise.reject(err);
      return withBusyRetry(fn, () => this.#gate, Date.now());
    }
  }

  get<T = Row>(sql: string, params?: SqlParams) {
    return this.#now(() => this.#statements.get<T>(sql, params));
  }

  all<T = Row>(sql: string, params?: SqlParams) {
    return this.#now(() => this.#statements.all<T>(sql, params));
  }

  run(sql: string, params?: SqlParams) {
    return this.#now(() => {
      const result = this.#statements.run(sql, params);
      // A statement outside a transaction that wrote is a write transaction of its own: it counts
      // towards handing checkpoints to the thread. A load whose only writes are such statements
      // (the MCP call log's batches under a flood of reads) otherwise kept SQLite's checkpoints
      // on this connection, each one syncing the disk on the event loop.
      if (result.changes > 0) this.checkpoints?.committed();
      return result;
    });
  }

  /** `opts.isolation` is ignored: BEGIN IMMEDIATE and the gate already make writers serial. */
  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, _opts?: TransactionOptions): Promise<T> {
    // No await between this check and taking the gate, so two callers in one tick cannot both pass.
    while (this.#gate) await this.#gate;
    let release!: () => void;
    this.#gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      // Another instance's write transaction: wait for it without blocking this process.
      await withBusyRetry(() => this.raw.exec('BEGIN IMMEDIATE'));
      try {
        const result = await fn(this.#direct);
        this.raw.exec('COMMIT');
        this.checkpoints?.committed();
        return result;
      } catch (err) {
        if (this.raw.inTransaction) this.raw.exec('ROLLBACK');
        throw err;
      }
    } finally {
      this.#gate = null;
      release();
    }
  }

  expectWrites(): void {
    this.checkpoints?.startNow();
  }

  async close(): Promise<void> {
    // A transaction still running finishes (or rolls back) before the handle goes.
    while (this.#gate) await this.#gate;
    await this.checkpoints?.stop();
    if (this.raw.open) this.raw.close();
  }
}
