import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
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
 * The most bytes of lines the asynchronous stream holds while its reader takes nothing (a
 * stalled log collector, a pipe nobody reads). Past it, a turn's lines are dropped and counted
 * instead of kept: without a bound, a client flooding requests (each access-log line carrying a
 * path of up to ~16 KB) grew the process's memory by tens of MB a second until it died.
 */
export const MAX_UNWRITTEN_BYTES = 32 * 1024 * 1024;

/**
 * When an exit stops waiting for a full pipe (`Infinity` until the process exits). sonic-boom
 * retries a full pipe for ever, in its synchronous flush too: pino's own exit hook and ours would
 * keep a SIGTERM'd server alive as long as its log reader is stalled.
 */
let giveUpAt = Number.POSITIVE_INFINITY;

/**
 * `writeSync` until every byte is out. A pipe (stderr under a process manager, a container
 * runtime, a test) takes only what fits in its buffer, a partial write, or nothing at all yet
 * (EAGAIN when it is non-blocking): one `writeSync` of a turn's lines would cut a line in two
 * and drop the rest. Waits for the reader in short pauses, but not forever: a reader that never
 * reads must not keep the process from exiting.
 */
function writeAllSync(fd: number, text: string) {
  let rest = Buffer.from(text, 'utf8');
  const until = Math.min(giveUpAt, Date.now() + EXIT_WRITE_PATIENCE_MS);
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN' || Date.now() >= until) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_PAUSE_MS);
    }
  }
}

/**
 * The batches with lines not yet handed over: one `exit` listener for all of them, holding
 * only batches that have something to write (a logger nobody uses anymore is never kept).
 * Registered when this module loads, before pino's exit hook (added on the first
 * `pino.destination`), so the deadline is set before either flushes.
 */
const unfinished = new Set<() => void>();
process.on('exit', () => {
  giveUpAt = Date.now() + EXIT_WRITE_PATIENCE_MS;
  for (const flush of unfinished) flush();
});

/** `fs` as CommonJS modules (sonic-boom) hold it: the object whose `writeSync` they call. */
const cjsFs: { writeSync: typeof writeSync } = createRequire(import.meta.url)('node:fs');

/**
 * Runs sonic-boom's synchronous flush so that it ends. sonic-boom 4 (pino 10's) gives up a
 * failed write only on EAGAIN, when `retryEAGAIN` says so; any other error (EPIPE, when the log's
 * reader dies while an exit is writing to it) it retries every 100 ms for ever, and the process
 * never exits. It calls `writeSync` through the `fs` object, so for the length of this
 * synchronous call a write failing that way reports its bytes as written: with the reader gone
 * nobody can take them, and the flush empties its buffers and returns. Nothing else runs during
 * the call, and the real `writeSync` is back when it returns or throws. (sonic-boom 5 throws such
 * errors itself; pino 10 still depends on 4.)
 */
function flushToTheEnd(flush: () => void) {
  const real = cjsFs.writeSync;
  cjsFs.writeSync = ((fd: number, data: string | NodeJS.ArrayBufferView, ...rest: never[]) => {
    try {
      return real(fd, data as string, ...rest);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EBUSY') throw err;
      return typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.byteLength;
    }
  }) as typeof writeSync;
  try {
    flush();
  } finally {
    cjsFs.writeSync = real;
  }
}

/** The line that says how many were dropped, in the logger's shape (level 40 is `warn`). */
const droppedLine = (count: number) =>
  `${JSON.stringify({
    level: 40,
    time: Date.now(),
    msg: `${count} log lines were dropped: the log's reader (stderr) took nothing while ${MAX_UNWRITTEN_BYTES} bytes waited`,
  })}\n`;

const countLines = (text: string) => {
  let n = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
  return n;
};

/**
 * JSON lines to `fd` (stderr by default), written once per turn of the event loop: by libuv's
 * thread pool, or with `sync` at once (where a write never waits for a reader: a file, /dev/null).
 */
export function logDestination(fd = 2, opts: { sync?: boolean } = {}): LogStream {
  // pino flushes its own asynchronous destination synchronously on exit as well; writing it
  // again from `flushSync` above finds it empty.
  const sonic = pino.destination({
    dest: fd,
    sync: opts.sync ?? false,
    maxLength: MAX_UNWRITTEN_BYTES,
    // A full pipe is waited for while the process runs (asynchronously), until `giveUpAt` on exit.
    retryEAGAIN: () => Date.now() < giveUpAt,
  });
  // Past the deadline sonic-boom's flushSync throws; from pino's exit hook that would be an
  // exception in an `exit` listener. What is left then is given up, as `writeAllSync` does.
  const flushOnce = sonic.flushSync.bind(sonic);
  sonic.flushSync = () => {
    try {
      flushToTheEnd(flushOnce);
    } catch {
      // The reader took nothing for EXIT_WRITE_PATIENCE_MS: the exit goes on without these lines.
    }
  };
  // A write that fails (ENOSPC when the disk holding the log file is full, EIO) keeps its lines
  // in the stream, tried again with the next write, so they count against MAX_UNWRITTEN_BYTES
  // and are dropped and counted past it. Without a listener of ours, pino's (which handles only
  // EPIPE) re-emits the error with none left, and the process died on its first failed line: a
  // client filling the disk with long request paths stopped the server, and every restart.
  sonic.on('error', () => {});
  let dropped = 0;
  let refused = false;
  sonic.on('drop', () => {
    refused = true;
  });
  const accepted = (text: string) => {
    refused = false;
    sonic.write(text);
    return !refused;
  };
  return turnBatched(
    {
      write(lines) {
        if (dropped > 0 && accepted(droppedLine(dropped))) dropped = 0;
        if (!accepted(lines)) dropped += countLines(lines);
      },
      flushSync: () => sonic.flushSync(),
      flush: (cb) => sonic.flush(cb),
    },
    fd,
  );
}
