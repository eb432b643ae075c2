import { type Logger, pino } from 'pino';

export type { Logger };

/**
 * Structured logs. We never log headers or bodies, but redact the usual secret-bearing
 * paths anyway so a future `log.info({ req })` cannot leak a key or token.
 */
export function createLogger(opts: { level?: string; name?: string } = {}): Logger {
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
    // Asynchronous: a line is handed to the stream and written off the request's path (lines
    // that arrive while a write is in flight go out together). pino flushes what is left
    // synchronously when the process exits, a crash included.
    pino.destination({ dest: 2, sync: false }),
  );
}

export const silentLogger = (): Logger => pino({ level: 'silent' });
