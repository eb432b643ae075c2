import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.js';

/**
 * The longest path written whole. Node accepts request targets up to its header limit (16 KB), and
 * a client repeating requests with such paths made every access line 16 KB: a flood of them fills
 * a log file or its disk 16 times faster than ordinary traffic for the same requests
 * (docs/security.md, seventh pass). The start of a path is what tells a reader which route it was
 * aimed at; the rest is said as a count.
 */
export const MAX_LOGGED_PATH = 1024;

/** `path`, or its first MAX_LOGGED_PATH characters and how many more there were. */
export function loggedPath(path: string): string {
  if (path.length <= MAX_LOGGED_PATH) return path;
  return `${path.slice(0, MAX_LOGGED_PATH)}…[${path.length - MAX_LOGGED_PATH} more characters]`;
}

/**
 * Logs one line per request once its response is finished. Only the path is logged: query
 * strings can carry one-time tokens.
 *
 * The line goes through a child of `logger` without its redaction paths. Those paths name
 * headers and nested keys (`*.token` is "the `token` of any top-level object"), and this line
 * holds five top-level strings and numbers, so no path can match it and the child writes the
 * very bytes the parent would; but the parent's wildcard paths are still tried on every field
 * of every line, which was most of what building the line cost. The threat to keep in mind:
 * a field added here that is an object (headers, a body) would not be redacted. Log those
 * through `logger` itself.
 */
export function accessLogger(logger: Logger): (req: Request, res: Response) => void {
  // A stand-in logger without `child` (a test's spy) logs through itself.
  const log = typeof logger.child === 'function' ? logger.child({}, { redact: { paths: [] } }) : logger;
  return (req, res) => {
    const started = performance.now();
    res.on('finish', () => {
      log.info(
        {
          requestId: req.requestId,
          method: req.method,
          path: loggedPath(req.path),
          status: res.statusCode,
          ms: performance.now() - started,
        },
        'request',
      );
    });
  };
}

/** `accessLogger` as a middleware of its own. */
export function accessLog(logger: Logger): RequestHandler {
  const logWhenFinished = accessLogger(logger);
  return (req, res, next) => {
    logWhenFinished(req, res);
    next();
  };
}
