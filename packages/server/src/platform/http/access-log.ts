import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.js';

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
          path: req.path,
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
