import { createHash } from 'node:crypto';
import type pg from 'pg';
import { getOrBuild } from '../get-or-build.js';
import { quoteIdent } from './migrate.js';
import { numberPlaceholders } from './placeholders.js';

/**
 * Named prepared statements for the PostgreSQL executor. node-postgres prepares a query given a
 * `name` once per connection (Parse), then only binds and executes it; so PostgreSQL parses and
 * analyses each statement once per connection instead of on every call, and, once it settles on a
 * generic plan (after five executions, when that plan costs no more than the custom ones), stops
 * planning it too. On the hot paths planning cost more than executing (docs/benchmarks/history.md,
 * "Eighth pass").
 */

/**
 * Statements one connection keeps prepared; past it the least recently used is deallocated. The
 * store and API tests of both services send 280 distinct texts in all (40 of them `IN (…)` lists
 * of some length), so a service's working set fits with room; what it bounds is SQL that varies
 * without end (`IN (…)` lists of every length, texts built per request), which must not grow a
 * connection's memory, here and on the server, for ever.
 */
export const STATEMENTS_PER_CONNECTION = 256;

/** A statement as sent: `$n` placeholders, and the name it is prepared under on every connection. */
export interface Statement {
  text: string;
  name: string;
}

const statements = new Map<string, Statement>();
/** Store SQL is a fixed set of strings; past this many something builds SQL dynamically. */
const MAX_CACHED = 2000;

/**
 * The statement for a store's `?` SQL, worked out once per distinct text. The name is a hash of
 * the text: one text has one name on every connection, and two texts never share one (pg refuses
 * a name reused for another text rather than run the wrong statement).
 */
export function statementFor(sql: string): Statement {
  let s = statements.get(sql);
  if (s === undefined) {
    const text = numberPlaceholders(sql);
    s = { text, name: `svc_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}` };
    if (statements.size >= MAX_CACHED) statements.clear();
    statements.set(sql, s);
  }
  return s;
}

/** What the executor did, for tests and the benchmarks (counters, never timings). */
export interface StatementCounts {
  /** Statements sent with a Parse under their name: the first run of a text on a connection. */
  prepared: number;
  /** Runs of a prepared statement, the first included. */
  executed: number;
  /** Runs sent as one-off (unnamed) statements: preparing off, or a transaction with a full connection. */
  unprepared: number;
  /** Statements deallocated to keep a connection under STATEMENTS_PER_CONNECTION. */
  deallocated: number;
  /** Statements run again, unprepared, after the server refused their prepared form (see isStalePlan). */
  retried: number;
}

/**
 * pg's own record of what it parsed on a connection (pg 8's Connection#parsedStatements): pg
 * skips the Parse of a name found there, so a name we deallocate must leave it too, or the next
 * run would bind a statement that no longer exists. test/platform/postgres-prepared covers it.
 */
const parsedOn = (client: pg.ClientBase) =>
  (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection
    .parsedStatements;

/**
 * The server refused a prepared statement at Bind, before running anything:
 * - 0A000 from RevalidateCachedQuery, "cached plan must not change result type": the table
 *   changed under a statement whose result columns it fixes (`SELECT *` after another instance's
 *   migration added a column, or a column's type changed);
 * - 26000 from FetchPreparedStatement, "prepared statement does not exist": the connection lost
 *   its statements (DISCARD ALL, or a transaction-mode pooler that moved us to another server
 *   connection).
 * Both are raised while binding, so the statement had no effect; outside a transaction it may be
 * run again. The routine names a place in PostgreSQL's code and, unlike the message, is never
 * translated; 0A000 alone would also match features refused for other reasons.
 */
export function isStalePlan(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, routine } = err as { code?: unknown; routine?: unknown };
  return (
    (code === '0A000' && routine === 'RevalidateCachedQuery') ||
    (code === '26000' && routine === 'FetchPreparedStatement')
  );
}

type QueryClass = typeof pg.Query;

/**
 * Sends `text` as the statement `name`, as `client.query({ name, text, values })` would, without
 * its cost: pg copies a query-config object on every call (normalizeQueryConfig's
 * cloneQueryConfig, through getOwnPropertyDescriptors and defineProperties), about 7.5 µs a call
 * against 0.3 µs for a query given as text (pg 8.23, Node 20), several times per request. So the
 * Query is built from the text, as for an unprepared statement, and then named (pg reads `name`
 * when it sends it). pg's Client exposes its Query class as `Client.Query`; a client without one
 * gets the plain call.
 */
function sendNamed(client: pg.ClientBase, name: string, text: string, values: unknown[]) {
  const Query = (client.constructor as { Query?: QueryClass }).Query;
  if (Query === undefined) return client.query({ name, text, values });
  return new Promise<pg.QueryResult>((resolve, reject) => {
    const query = new Query(text, values, (err, result) =>
      err ? reject(err) : resolve(result as unknown as pg.QueryResult),
    );
    (query as unknown as { name: string }).name = name;
    client.query(query);
  });
}

interface OnConnection {
  /** Names prepared on this connection, least recently used first (a Map keeps insertion order). */
  names: Map<string, true>;
  /** A prepared statement here went stale: the connection is discarded, its statements with it. */
  stale: boolean;
}

export class PreparedStatements {
  readonly counts: StatementCounts = { prepared: 0, executed: 0, unprepared: 0, deallocated: 0, retried: 0 };
  readonly #connections = new WeakMap<pg.ClientBase, OnConnection>();

  /** `enabled` false (SERVICE_DATABASE_PREPARE=0): every statement goes as a one-off, as before. */
  constructor(
    readonly enabled: boolean,
    readonly perConnection = STATEMENTS_PER_CONNECTION,
  ) {}

  /**
   * Runs `sql` on `client`, prepared under its name. Inside a transaction nothing else may be
   * sent (a failing DEALLOCATE would abort it), so a full connection runs the statement unprepared
   * there; outside one the least recently used statement makes room.
   */
  async run(client: pg.ClientBase, sql: string, values: unknown[], inTransaction: boolean) {
    const { text, name } = statementFor(sql);
    if (!this.enabled) return this.#unprepared(client, text, values);
    const on = this.#on(client);
    // One stale statement means a schema change or lost statements: the others here may be stale
    // too, so until the connection is discarded (at its release) nothing more runs prepared on it.
    if (on.stale) return this.#unprepared(client, text, values);
    if (on.names.delete(name)) on.names.set(name, true);
    else {
      if (on.names.size >= this.perConnection) {
        if (inTransaction) return this.#unprepared(client, text, values);
        await this.#evictOldest(client, on);
      }
      on.names.set(name, true);
      this.counts.prepared++;
    }
    this.counts.executed++;
    try {
      return await sendNamed(client, name, text, values);
    } catch (err) {
      if (isStalePlan(err)) on.stale = true;
      // A Parse that failed (bad SQL) left nothing prepared: pg parses it again next time.
      if (!(name in parsedOn(client))) on.names.delete(name);
      throw err;
    }
  }

  /** Did a statement on this connection go stale? Then it must not go back to the pool. */
  isStale(client: pg.ClientBase): boolean {
    return this.#connections.get(client)?.stale === true;
  }

  /**
   * The statement again, unprepared, after isStalePlan refused it: on any connection of a pool, or
   * on the transaction's own connection once the transaction has begun again.
   */
  retry(on: pg.Pool | pg.ClientBase, sql: string, values: unknown[]) {
    this.counts.retried++;
    return on.query(statementFor(sql).text, values);
  }

  /**
   * `sql` as a one-off statement, planned for its values on this run. Serializable transactions
   * run this way: a generic plan chosen once (often a scan, while a table is small) takes SIREAD
   * locks on whole pages or relations where the custom plan's index lookups lock only the rows it
   * read, and PostgreSQL then aborts concurrent transactions that never touched the same rows.
   * Measured: 16 concurrent confirms of one user's checkouts gave way 16 times (503 CONTENDED)
   * with the statements prepared, and not once without (docs/benchmarks/history.md, eighth pass).
   */
  runOneOff(client: pg.ClientBase, sql: string, values: unknown[]) {
    return this.#unprepared(client, statementFor(sql).text, values);
  }

  #unprepared(client: pg.ClientBase, text: string, values: unknown[]) {
    this.counts.unprepared++;
    return client.query(text, values);
  }

  #on(client: pg.ClientBase): OnConnection {
    return getOrBuild(this.#connections, client, () => ({ names: new Map(), stale: false }));
  }

  async #evictOldest(client: pg.ClientBase, on: OnConnection) {
    const oldest = on.names.keys().next().value as string;
    on.names.delete(oldest);
    delete parsedOn(client)[oldest];
    this.counts.deallocated++;
    await client.query(`DEALLOCATE ${quoteIdent(oldest)}`);
  }
}
