import type { SqlDatabase } from '../../platform/db/sql.js';
import type { Logger } from '../../platform/logger.js';
import { type McpCallRow, mcpCallsStore } from '../db/stores/misc-stores.js';

/**
 * The MCP call log is written in batches, off the answer's path: one INSERT per call cost a
 * database write on every `tools/call`, as much as the call itself for a small tool such as
 * list_agents. Entries wait here at most FLUSH_MS (or until MAX_BATCH of them) and go in one
 * multi-row INSERT. What a crash can lose is that last batch, under FLUSH_MS of calls; a clean
 * shutdown flushes (app.ts close), and reading the log (GET /v1/mcp-calls) flushes this
 * instance's entries first, so a caller reads its own calls. Another instance's calls show up
 * within FLUSH_MS.
 */
export const FLUSH_MS = 100;
export const MAX_BATCH = 200;

class CallLogBatch {
  #pending: McpCallRow[] = [];
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: SqlDatabase,
    private readonly logger: Logger,
  ) {}

  add(row: McpCallRow) {
    this.#pending.push(row);
    if (this.#pending.length >= MAX_BATCH) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.#timer.unref();
    }
  }

  /** Writes what is pending; settles once every entry added before the call is in the database. */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    const rows = this.#pending.splice(0);
    // One write at a time, in order, so a flush's promise also covers the batches before it.
    this.#writing = this.#writing.then(async () => {
      if (rows.length === 0) return;
      try {
        await mcpCallsStore(this.db).insertMany(rows);
      } catch (err) {
        // The log must not fail the calls it records; the entries are lost, and the operator hears it.
        this.logger.error({ err, entries: rows.length }, 'could not record MCP calls');
      }
    });
    return this.#writing;
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
export const queueToolCall = (db: SqlDatabase, logger: Logger, row: McpCallRow) =>
  batchOf(db, logger).add(row);

/** Writes this instance's pending entries of the call log (before reading it, and at shutdown). */
export const flushToolCalls = (db: SqlDatabase) => batches.get(db)?.flush() ?? Promise.resolve();
