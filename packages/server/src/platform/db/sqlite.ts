import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

export type SqlValue = string | number | bigint | null | Uint8Array;
export type SqlParams = readonly SqlValue[] | Record<string, SqlValue>;
export type Row = Record<string, unknown>;

/**
 * The narrow surface stores are written against. It is async so a PostgreSQL backend can
 * implement it later; the SQLite implementation answers synchronously underneath.
 */
export interface SqlExecutor {
  get<T = Row>(sql: string, params?: SqlParams): Promise<T | undefined>;
  all<T = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<{ changes: number }>;
}

export interface SqlDatabase extends SqlExecutor {
  /**
   * Runs `fn` in one transaction. Until it settles, every other query on this database waits,
   * so work from other requests cannot slip into (or be rolled back with) this transaction
   * while `fn` awaits. Only store calls belong inside `fn`; no network I/O.
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): void;
  /** Escape hatch for migrations and benchmarks. */
  readonly raw: Database.Database;
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
   * The same step for PostgreSQL, under the same number, so both engines reach the same schema.
   * Data fix-ups that only SQLite deployments can need (they predate PostgreSQL support) have no
   * PostgreSQL counterpart beyond the DDL.
   */
  postgres?: string;
}

/** Where migration notes go when the caller has no logger (the CLI): one line on stderr each. */
const stderrLog = (message: string) => process.stderr.write(`svc-server: ${message}\n`);

export function openDatabase(
  file: string,
  migrations: readonly Migration[],
  opts: { log?: (message: string) => void } = {},
): SqlDatabase {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  // Lets `svc-server keys create` write while a running server holds the file, and a second
  // instance starting beside a running one wait for its migrations.
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  migrate(db, migrations, file, opts.log);
  // From here on a busy database is waited for asynchronously (see withBusyRetry): SQLite's own
  // wait blocks the event loop, so another instance in this same process that holds the write
  // lock across an await could never finish and let go.
  db.pragma(`busy_timeout = ${BUSY_SPIN_MS}`);
  return new GatedDatabase(db);
}

export function migrate(
  db: Database.Database,
  migrations: readonly Migration[],
  label = 'database',
  log: (message: string) => void = stderrLog,
): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const ids = migrations.map((m) => m.id);
  ids.forEach((id, i) => {
    if (id !== i + 1)
      throw new Error(`Migrations must be numbered 1..n without gaps; found ${id} at ${i + 1}.`);
  });
  const applied = db.prepare('SELECT MAX(id) AS id FROM schema_migrations').get() as { id: number | null };
  const current = applied.id ?? 0;
  if (current > migrations.length) {
    throw new Error(
      `${label} was written by a newer svc-server (schema ${current}, this version knows ${migrations.length}). Upgrade svc-server.`,
    );
  }
  for (const m of migrations.slice(current)) {
    db.transaction(() => {
      if (typeof m.up === 'string') db.exec(m.up);
      else m.up(db, (message) => log(`${label}, migration ${m.id} (${m.name}): ${message}`));
      db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(
        m.id,
        m.name,
        new Date().toISOString(),
      );
    }).immediate();
  }
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
async function withBusyRetry<T>(fn: () => T, gate: () => Promise<void> | null = () => null): Promise<T> {
  const deadline = Date.now() + BUSY_WAIT_MS;
  for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
    // Re-checked after every wake-up, in the frame that runs `fn`: nothing can take the gate between.
    for (let g = gate(); g; g = gate()) await g;
    try {
      return fn();
    } catch (err) {
      if (!isBusy(err) || Date.now() > deadline) throw err;
    }
    await new Promise((resolve) => setTimeout(resolve, pause + Math.random() * pause));
  }
}

const statementCache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function prepare(db: Database.Database, sql: string): Database.Statement {
  let cache = statementCache.get(db);
  if (!cache) {
    cache = new Map();
    statementCache.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}

const bind = (params?: SqlParams) => (params === undefined ? [] : [params]);

const runNow = (db: Database.Database, sql: string, params?: SqlParams) => ({
  changes: prepare(db, sql).run(...bind(params)).changes,
});

function directExecutor(db: Database.Database): SqlExecutor {
  return {
    get: async <T>(sql: string, params?: SqlParams) => prepare(db, sql).get(...bind(params)) as T | undefined,
    all: async <T>(sql: string, params?: SqlParams) => prepare(db, sql).all(...bind(params)) as T[],
    run: async (sql: string, params?: SqlParams) => runNow(db, sql, params),
  };
}

class GatedDatabase implements SqlDatabase {
  readonly raw: Database.Database;
  readonly #direct: SqlExecutor;
  /** Settles when the transaction in progress (if any) ends. */
  #gate: Promise<void> | null = null;

  constructor(db: Database.Database) {
    this.raw = db;
    this.#direct = directExecutor(db);
  }

  /**
   * Runs one statement outside any transaction. It may meet another instance's write lock (an
   * UPDATE … RETURNING read through `get` writes too): it then waits and tries again, re-checking
   * the gate each time so it never lands inside a transaction this process started meanwhile.
   */
  #now<T>(fn: () => T): Promise<T> {
    return withBusyRetry(fn, () => this.#gate);
  }

  get<T = Row>(sql: string, params?: SqlParams) {
    return this.#now(() => prepare(this.raw, sql).get(...bind(params)) as T | undefined);
  }

  all<T = Row>(sql: string, params?: SqlParams) {
    return this.#now(() => prepare(this.raw, sql).all(...bind(params)) as T[]);
  }

  run(sql: string, params?: SqlParams) {
    return this.#now(() => runNow(this.raw, sql, params));
  }

  async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
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

  close(): void {
    if (this.raw.open) this.raw.close();
  }
}
