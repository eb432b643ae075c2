import express, { type Express, type Router } from 'express';
import type { Logger } from '../logger.js';
import { accessLog } from './access-log.js';
import { jsonBody } from './body.js';
import { errorHandler, notFoundHandler } from './errors-middleware.js';
import { requestId } from './request-id.js';

export interface HttpAppOptions {
  logger: Logger;
  bodyLimitBytes: number;
  /** Middleware that must run before body parsing (gates, CSRF checks, raw routes). */
  early?: (Router | express.RequestHandler)[];
  /** Routes that receive multipart bodies and must skip the JSON parser. */
  isMultipartRoute?: (req: express.Request) => boolean;
}

/**
 * The express app both services start from: request ids on every response, access logs,
 * JSON-only bodies with a limit, and (via `finishHttpApp`) our error shape for everything else.
 */
export function createHttpApp(opts: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestId());
  app.use(accessLog(opts.logger));
  for (const mw of opts.early ?? []) app.use(mw);
  app.use(
    ...jsonBody({
      limitBytes: opts.bodyLimitBytes,
      ...(opts.isMultipartRoute ? { isMultipartRoute: opts.isMultipartRoute } : {}),
    }),
  );
  return app;
}

export function finishHttpApp(app: Express, logger: Logger): Express {
  app.use(notFoundHandler());
  app.use(errorHandler(logger));
  return app;
}
