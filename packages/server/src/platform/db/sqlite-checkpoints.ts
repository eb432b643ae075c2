import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/**
 * WAL checkpoints off the event loop, for a database that writes a lot.
 *
 * SQLite checkpoints on the connection that commits once the WAL passes 1,000 pages, and with
 * `synchronous = NORMAL` a checkpoint syncs the WAL and the database file to disk: better-sqlite3
 * being synchronous, that commit holds the event loop for as long as the disk takes. Under the
 * webhook dispatcher's writes that was 9-10 % of a drain's samples in `COMMIT` against 5 % without
 * checkpoints, in stalls of up to 166 ms each on this project's loaded machines (docs/benchmarks/history.md,
 * "seventh pass: the webhook dispatcher's tail"): every request and delivery in flight waits them out.
 *
 * So once a connection has committed `BUSY_AFTER` write transactions within a minute, a worker thread with a
 * connection of its own checkpoints every `EVERY_MS` (PASSIVE: it never waits for, nor blocks,
 * the writer or the readers) and the main connection stops checkpointing. Started only then,
 * because the thread costs about 9 MB of memory, which a server that mostly reads (the million-row
 * case) should not pay. Should the thread fail, the connection checkpoints itself again. Nothing
 * about durability changes: a commit is in the WAL before and after, the checkpoint only moves it.
 */
export const BUSY_AFTER = 200;
/**
 * ...within this long. A statement that writes outside a transaction counts too (the MCP call
 * log's batches, sqlite.ts `run`), and so does a quiet server's housekeeping (the key epoch's
 * heartbeat every 5 s, the background pass's leases): counted without a window, those alone
 * reached BUSY_AFTER within the hour and started the thread on a server that mostly reads.
 */
export const BUSY_WINDOW_MS = 60_000;
const EVERY_MS = 100;
/** SQLite's own default, put back when the thread stops or fails. */
const SQLITE_AUTOCHECKPOINT = 1_000;
/**
 * How long `stop()` waits for the thread to close its connection and exit before terminating it.
 * A thread that never answers (stuck in a loop, its event loop blocked) would otherwise hold the
 * shutdown forever. A checkpoint in progress finishes or is cut short; either is safe, since
 * checkpointing only copies pages the WAL still holds. Generous, because a PASSIVE checkpoint of
 * a large WAL on a slow disk can take seconds, and a clean close is better when it comes.
 */
const STOP_WAIT_MS = 5_000;

// CommonJS for the thread (an `eval` worker): the driver's path is passed in, so it resolves
// from this package whether it runs from `src` or from the bundle in `dist`.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
const timer = setInterval(() => {
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    if (r && r.checkpointed > 0) parentPort.postMessage(1);
  } catch {
    // Another connection is checkpointing, or the file is busy: the next turn tries again.
  }
}, workerData.everyMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface Checkpointer {
  /** Call after each committed write transaction: starts the thread once the database is busy. */
  committed(): void;
  /**
   * Starts the thread now, without waiting for `BUSY_AFTER` commits: the caller knows a steady
   * stream of writes begins (the webhook dispatcher's first delivery). Counted, the thread started
   * a second or so into the first burst of load, when a just-started server is slowest (code not
   * yet optimised, connections being opened), and its start (a V8 isolate, the driver loaded, a
   * connection opened: 70-100 ms of CPU on a loaded machine, 9-12 ms of it on the event loop)
   * took that from the first deliveries. Does nothing once started, stopped or closed.
   */
  startNow(): void;
  /** Checkpoints the thread has made that moved pages to the database file (0 before it starts). */
  runs(): number;
  /** Whether the main connection has handed its checkpoints to the thread. */
  handedOff(): boolean;
  /** Stops the thread (its connection closed) and gives checkpoints back to the main connection. */
  stop(): Promise<void>;
}

/** Test hooks: the thread's source (a thread that never answers) and how long stop() waits for it. */
export interface CheckpointerOptions {
  thread?: string;
  stopWaitMs?: number;
}

export function backgroundCheckpoints(
  db: Database.Database,
  file: string,
  { thread = THREAD, stopWaitMs = STOP_WAIT_MS }: CheckpointerOptions = {},
): Checkpointer {
  let commits = 0;
  let windowStart = Number.NEGATIVE_INFINITY;
  /** The thread is started at most once: after a failure or a stop the connection keeps its own checkpoints. */
  let started = false;
  let runs = 0;
  let worker: Worker | null = null;
  let exited: Promise<void> = Promise.resolve();
  let handedOff = false;
  const takeBack = () => {
    handedOff = false;
    if (db.open) db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT}`);
  };

  function start() {
    const w = new Worker(thread, {
      eval: true,
      workerData: {
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        file,
        everyMs: EVERY_MS,
      },
      // A pragma every 100 ms needs little heap; the cap only keeps a fault from growing.
      resourceLimits: { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 2 },
    });
    w.unref();
    worker = w;
    w.on('message', () => {
      runs += 1;
    });
    exited = new Promise((resolve) => {
      w.once('exit', () => {
        worker = null;
        takeBack();
        resolve();
      });
    });
    // A thread that cannot open the file or load the driver ends with an error, then exits.
    w.on('error', () => undefined);
    db.pragma('wal_autocheckpoint = 0');
    handedOff = true;
  }

  return {
    startNow() {
      if (started || !db.open) return;
      started = true;
      start();
    },
    committed() {
      if (started) return;
      const now = Date.now();
      if (now - windowStart >= BUSY_WINDOW_MS) {
        windowStart = now;
        commits = 0;
      }
      commits += 1;
      if (commits === BUSY_AFTER && db.open) {
        started = true;
        start();
      }
    },
    runs: () => runs,
    handedOff: () => handedOff,
    async stop() {
      started = true;
      const w = worker;
      if (!w) return exited;
      w.postMessage('stop');
      // Past the wait, terminate(): its 'exit' gives checkpoints back to the main connection
      // as a clean stop does. The timer is not unref'd, so stop() always settles.
      const timer = setTimeout(() => void w.terminate(), stopWaitMs);
      try {
        await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
