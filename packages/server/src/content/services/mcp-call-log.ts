import type { SqlDatabase } from '../../platform/db/sql.js';
import type { Logger } from '../../platform/logger.js';
import { mcpCallsStore, type NewMcpCall } from '../db/stores/misc-stores.js';

/**
 * The MCP call log is written in batches, off the answer's path: one INSERT per call cost a
 * database write on every `tools/call`, as much as the call itself for a small tool such as
 * list_agents. Entries wait here at most FLUSH_MS (or until MAX_BATCH of them) and go in one
 * multi-row INSERT; one write is in flight at a time. What a crash (kill -9) can lose is what
 * waits here: under FLUSH_MS of calls, or more while the database is slower than the calls. A
 * clean shutdown flushes (app.ts close), and reading the log (GET /v1/mcp-calls) flushes this
 * instance's entries first, so a caller reads its own calls. Another instance's calls show up
 * within FLUSH_MS.
 */
export const FLUSH_MS = 100;
export const MAX_BATCH = 200;
/**
 * The most entries that wait for the database. A flood of calls while the database is slow or
 * stalled (a lock, a failover) would otherwise hold every entry in memory until it answered. Past
 * the cap a new entry is dropped, not queued: the answer to the call is unchanged, the drop is
 * counted, and the count is logged as an error once the next write ends (docs/content/mcp.md, "The call log").
 * Dropping the newest keeps what was queued first, in order.
 */
export const MAX_PENDING = 20 * MAX_BATCH;
/**
 * The most of those one key may hold. Every call is logged, a rate-limited refusal included, so
 * one key flooding while the database is slow would otherwise fill the whole queue, and every
 * other key's calls would go unrecorded until it drained: the flood would erase the audit trail of
 * the keys beside it. With a share, four keys at once are needed to fill it.
 */
export const MAX_PENDING_PER_KEY = MAX_PENDING / 4;

class CallLogBatch {
  #pending: NewMcpCall[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** The write loop, while one runs: never two, so batches reach the database in order. */
  #writer: Promise<void> | null = null;
  /** Entries queued so far, entries whose write has ended (written or failed), and up to where all are due now. */
  #added = 0;
  #done = 0;
  #due = 0;
  #dropped = 0;
  /** Pending entries by key (no key: the null row, counted like one more key). */
  #perKey = new Map<string | null, number>();
  #waiters: { upTo: number; resolve: () => void }[] = [];

  constructor(
    private readonly db: SqlDatabase,
    private readonly logger: Logger,
  ) {}

  add(row: NewMcpCall) {
    const held = this.#perKey.get(row.key_id) ?? 0;
    if (this.#pending.length >= MAX_PENDING || held >= MAX_PENDING_PER_KEY) {
      this.#dropped += 1;
      return;
    }
    this.#perKey.set(row.key_id, held + 1);
    this.#pending.push(row);
    this.#added += 1;
    if (this.#pending.length >= MAX_BATCH) this.#write();
    else this.#arm();
  }

  /** Writes what is pending; settles once every entry added before the call has been written. */
  flush(): Promise<void> {
    const upTo = this.#added;
    if (this.#done >= upTo) return Promise.resolve();
    this.#due = Math.max(this.#due, upTo);
    const settled = new Promise<void>((resolve) => this.#waiters.push({ upTo, resolve }));
    this.#write();
    return settled;
  }

  /** Entries waiting for the database (for tests and the drop rule's bound). */
  waiting(): number {
    return this.#added - this.#done;
  }

  #arm() {
    if (this.#timer || this.#pending.length === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#due = Math.max(this.#due, this.#added);
      this.#write();
    }, FLUSH_MS);
    this.#timer.unref();
  }

  #write() {
    if (this.#writer) return; // the loop in progress takes what is due when its write ends
    this.#writer = this.#writeWhileDue().finally(() => {
      this.#writer = null;
      // What came due between the loop's last check and here.
      if (this.#pending.length >= MAX_BATCH || this.#due > this.#done) this.#write();
      else this.#arm();
    });
  }

  async #writeWhileDue() {
    while (this.#pending.length >= MAX_BATCH || this.#due > this.#done) {
      const rows = this.#pending.splice(0, MAX_BATCH);
      // A key's share is of what waits in memory: the batch in its write is out of the queue.
      for (const r of rows) {
        const left = (this.#perKey.get(r.key_id) ?? 1) - 1;
        if (left > 0) this.#perKey.set(r.key_id, left);
        else this.#perKey.delete(r.key_id);
      }
      try {
        await mcpCallsStore(this.db).insertMany(rows);
      } catch (err) {
        // The log must not fail the calls it records; the entries are lost, and the operator hears it.
        this.logger.error({ err, entries: rows.length }, 'could not record MCP calls');
      }
      this.#done += rows.length;
      const settled = this.#waiters.filter((w) => w.upTo <= this.#done);
      this.#waiters = this.#waiters.filter((w) => w.upTo > this.#done);
      for (const w of settled) w.resolve();
      if (this.#dropped > 0) {
        this.logger.error(
          { dropped: this.#dropped, cap: MAX_PENDING, perKey: MAX_PENDING_PER_KEY },
          'MCP call log entries dropped: the database fell behind the calls',
        );
        this.#dropped = 0;
      }
    }
  }
}

const batches = new WeakMap<SqlDatabase, CallLogBatch>();

const batchOf = (db: SqlDatabase, logger: Logger) => {
  let b = batches.get(db);
  if (!b) {
    b = new CallLogBatch(db, logger);
    batches.set(db, b);
  }
  return b;
};

/** Queues one entry of the call log for the next batch. */
export const queueToolCall = (db: SqlDatabase, logger: Logger, row: NewMcpCall) =>
  batchOf(db, logger).add(row);

/** Writes this instance's pending entries of the call log (before reading it, and at shutdown). */
export const flushToolCalls = (db: SqlDatabase) => batches.get(db)?.flush() ?? Promise.resolve();

/** This instance's entries not yet written (queued or in the write in flight). */
export const waitingToolCalls = (db: SqlDatabase) => batches.get(db)?.waiting() ?? 0;
