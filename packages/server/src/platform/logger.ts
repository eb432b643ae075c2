import { type Logger, pino } from 'pino';
import { logDestination } from './log-destination.js';

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
    // Asynchronous: the lines of one turn of the event loop go out in one write, off the
    // request's path; what is left is written synchronously when the process exits, a crash
    // included (log-destination.ts).
    opts.destination ?? logDestination(2),
  );
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
