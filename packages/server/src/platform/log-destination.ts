import { writeSync } from 'node:fs';
import { pino } from 'pino';

/** What pino writes its lines to: the part of a stream it uses. */
export interface LogStream {
  write(line: string): void;
  flushSync(): void;
  /** `logger.flush(cb)`: what is pending goes out now; `cb` once the stream says so. */
  flush(cb: (err?: Error) => void): void;
}

/**
 * Lines logged during one turn of the event loop, handed to `stream` in one write at the end
 * of the turn (`setImmediate`). A busy server logs a line per request, and each write of
 * sonic-boom's asynchronous stream is a trip through libuv's thread pool (a system call to
 * wake a worker, another to come back): one trip per turn instead of one per line.
 *
 * A quiet server's line waits for no timer, only for the end of the turn it was logged in.
 * On exit (a crash included: `process.exit` and uncaught exceptions both emit `exit`) what is
 * pending is written synchronously, after whatever the stream itself still holds, so lines
 * stay in order. A `kill -9` loses what was never handed to the OS: the current turn's lines
 * and the stream's write in flight, a few milliseconds of lines at most.
 */
export function turnBatched(stream: LogStream, fd: number): LogStream {
  let pending = '';
  const hand = () => {
    const lines = pending;
    pending = '';
    unfinished.delete(flushSync);
    // Empty when a synchronous flush (a fatal line, exit) took this turn's lines already.
    if (lines) stream.write(lines);
  };
  const flushSync = () => {
    const lines = pending;
    pending = '';
    unfinished.delete(flushSync);
    try {
      stream.flushSync();
    } catch {
      // Already ended (pino ends it on beforeExit) or stderr gone: this batch's lines still go.
    }
    try {
      if (lines) writeAllSync(fd, lines);
    } catch {
      // stderr gone (EPIPE, closed): nothing is left to tell, and an exit must not throw.
    }
  };
  return {
    write(line) {
      if (!pending) {
        // First line of this turn: write when the turn's I/O callbacks are done.
        setImmediate(hand);
        unfinished.add(flushSync);
      }
      pending += line;
    },
    flushSync,
    flush(cb) {
      hand();
      stream.flush(cb);
    },
  };
}

/** How long an exit keeps retrying a full pipe before it gives its last lines up. */
const EXIT_WRITE_PATIENCE_MS = 5_000;
const RETRY_PAUSE_MS = 10;

/**
 * `writeSync` until every byte is out. A pipe (stderr under a process manager, a container
 * runtime, a test) takes only what fits in its buffer, a partial write, or nothing at all yet
 * (EAGAIN when it is non-blocking): one `writeSync` of a turn's lines would cut a line in two
 * and drop the rest. Waits for the reader in short pauses, but not forever: a reader that never
 * reads must not keep the process from exiting.
 */
function writeAllSync(fd: number, text: string) {
  let rest = Buffer.from(text, 'utf8');
  let waited = 0;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || waited >= EXIT_WRITE_PATIENCE_MS) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_PAUSE_MS);
      waited += RETRY_PAUSE_MS;
    }
  }
}

/**
 * The batches with lines not yet handed over: one `exit` listener for all of them, holding
 * only batches that have something to write (a logger nobody uses anymore is never kept).
 */
const unfinished = new Set<() => void>();
process.on('exit', () => {
  for (const flush of unfinished) flush();
});

/** Asynchronous JSON lines to `fd` (stderr by default), written once per turn of the event loop. */
export function logDestination(fd = 2): LogStream {
  // pino flushes its own asynchronous destination synchronously on exit as well; writing it
  // again from `flushSync` above finds it empty.
  return turnBatched(pino.destination({ dest: fd, sync: false }), fd);
}
