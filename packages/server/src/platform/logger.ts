import { fstatSync } from 'node:fs';
import { isatty } from 'node:tty';
import { type Logger, pino } from 'pino';
import { type LogStream, logDestination } from './log-destination.js';

export type { Logger };

/**
 * Structured logs. We never log headers or bodies, but redact the usual secret-bearing
 * paths anyway so a future `log.info({ req })` cannot leak a key or token.
 */
export function createLogger(
  opts: {
    level?: string;
    name?: string;
    /** Where the lines go instead of stderr (tests read them). */
    destination?: { write(line: string): void };
  } = {},
): Logger {
  // Logs go to stderr so stdout carries only what the CLI prints on purpose (URLs, new keys).
  return pino(
    {
      name: opts.name ?? 'svc',
      level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
      redact: {
        paths: [
          'headers.authorization',
          'req.headers.authorization',
          'req.headers["service-user-token"]',
          'headers["service-user-token"]',
          '*.apiKey',
          '*.api_key',
          '*.secret',
          '*.token',
          '*.user_token',
          '*.public_token',
        ],
        censor: '[redacted]',
      },
    },
    // The lines of one turn of the event loop go out in one write; what is left is written
    // synchronously when the process exits, a crash included (log-destination.ts).
    opts.destination ?? stderrDestination(),
  );
}

/**
 * Whether a write to `fd` finishes without waiting for anyone: a regular file (the kernel copies
 * the lines to its page cache) or the null device. A pipe, a socket (a process manager, journald,
 * a container runtime) or a terminal can make a writer wait as long as its reader likes.
 */
export function writesWithoutWaiting(fd: number): boolean {
  try {
    // `bigint: true` on purpose: a plain fstatSync leaves its result in the buffer Node's own
    // realpathSync reads back after a cache hit (lib/fs.js checks it for a FIFO or a socket). With
    // stderr on a pipe or journald's socket, the next import of a symlinked package (pnpm's layout)
    // then stops resolving at the link and misses its dependencies. The bigint variant fills a
    // separate buffer. The `pg` driver does not rely on this (db/pg-driver.ts); the other packages
    // imported lazily (sharp, undici, @simplewebauthn) do.
    const stat = fstatSync(fd, { bigint: true });
    return stat.isFile() || (stat.isCharacterDevice() && !isatty(fd));
  } catch {
    return false;
  }
}

/**
 * stderr, a turn's lines in one write. Where a write cannot wait (a file, /dev/null) it is made
 * at once, as Node writes process.stderr to a file: one system call per turn. Anything else is
 * written asynchronously by sonic-boom in libuv's thread pool, so a reader that stops reading
 * cannot hold the event loop; that trip (a worker woken and a completion sent back, about
 * 8 µs of CPU on a pinned core against 1 µs for the write itself) is what the file case saves.
 */
function stderrDestination(): LogStream {
  return logDestination(2, { sync: writesWithoutWaiting(2) });
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
