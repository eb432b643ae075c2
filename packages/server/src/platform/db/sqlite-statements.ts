import type Database from 'better-sqlite3';

/**
 * Prepared statements one SQLite connection keeps; past it the least recently used is dropped,
 * and better-sqlite3 finalizes it when V8 collects the wrapper (at a full GC: V8 never sees a
 * statement's native size). The same bound as PostgreSQL's STATEMENTS_PER_CONNECTION, for the
 * same reason: the stores' fixed texts fit with room, and what it bounds is SQL that varies
 * without end. `IN (…)` lists are written with one `?` per item, so every length is a text of its
 * own, and a statement's native size grows with its list: 2,000 texts of `IN` lists 1 to 2,000
 * long held 334 MB, and each further 2,000 as much again; bounded, the same texts, four times
 * over, stay at 166 MB of RSS all told (scratch script, docs/benchmarks.md, "RSS at 1M rows").
 * Lists sized by what the database holds (the media sweep's asset directories, once a day) made
 * a new text whenever the count changed, so the server grew for as long as it ran.
 */
export const SQLITE_STATEMENTS_PER_CONNECTION = 256;

/** What the cache did, for tests and the benchmarks (counts, never timings). */
export interface SqliteStatementCounts {
  /** Statements kept now. */
  cached(): number;
  /** Statements prepared since the connection opened: a text met for the first time, or again after its eviction. */
  prepared(): number;
}

export class SqliteStatements implements SqliteStatementCounts {
  /** Least recently used first: a Map keeps insertion order, and a hit moves its text to the end. */
  readonly #byText = new Map<string, Database.Statement>();
  #prepared = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly limit = SQLITE_STATEMENTS_PER_CONNECTION,
  ) {}

  get(sql: string): Database.Statement {
    let stmt = this.#byText.get(sql);
    if (stmt !== undefined) {
      this.#byText.delete(sql);
    } else {
      stmt = this.db.prepare(sql);
      this.#prepared++;
      if (this.#byText.size >= this.limit) this.#byText.delete(this.#byText.keys().next().value as string);
    }
    this.#byText.set(sql, stmt);
    return stmt;
  }

  cached() {
    return this.#byText.size;
  }

  prepared() {
    return this.#prepared;
  }
}
