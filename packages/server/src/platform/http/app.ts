import express, { type Express, type Router } from 'express';
import type { Logger } from '../logger.js';
import { accessLogger } from './access-log.js';
import { jsonBody } from './body.js';
import { errorHandler, notFoundHandler } from './errors-middleware.js';
import { assignRequestId } from './request-id.js';

export interface HttpAppOptions {
  logger: Logger;
  bodyLimitBytes: number;
  /** Middleware that must run before body parsing (gates, CSRF checks, raw routes). */
  early?: (Router | express.RequestHandler)[];
  /** Routes that receive multipart bodies and must skip the JSON parser. */
  isMultipartRoute?: (req: express.Request) => boolean;
  /**
   * A path prefix (e.g. `/v1/`) none of the `early` routers answers: requests under it skip
   * them instead of walking every page route's pattern first.
   */
  apiPrefix?: string;
}

/**
 * `router`, passed over for paths under `prefix`. Only for routers that answer nothing there
 * (the hosted pages, the dashboard, the API reference), so it changes no answer.
 */
export function notUnder(prefix: string, router: Router | express.RequestHandler): express.RequestHandler {
  return (req, res, next) => (req.path.startsWith(prefix) ? next() : router(req, res, next));
}

/**
 * One spelling per resource: paths match case-sensitively and a trailing slash is a different
 * path. Every router in both services is built with these options (`createRouter`), so a
 * guard mounted on a router and the router's routes see paths the same way.
 */
export const ROUTER_OPTIONS = { caseSensitive: true, strict: true } as const;

export const createRouter = (): Router => express.Router(ROUTER_OPTIONS);

/**
 * The express app both services start from: request ids on every response, access logs,
 * JSON-only bodies with a limit, and (via `finishHttpApp`) our error shape for everything else.
 */
export function createHttpApp(opts: HttpAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('case sensitive routing', ROUTER_OPTIONS.caseSensitive);
  app.set('strict routing', ROUTER_OPTIONS.strict);
  app.set('query parser', 'simple');
  // Each app-level layer is a step of express's router on every request, so what every request
  // goes through is as few layers as it can be: the request id and the access log are one.
  const logWhenFinished = accessLogger(opts.logger);
  app.use((req, res, next) => {
    assignRequestId(req, res);
    logWhenFinished(req, res);
    next();
  });
  const early = opts.early ?? [];
  const apiPrefix = opts.apiPrefix;
  if (apiPrefix && early.length > 0) {
    // Requests under the prefix pass every early router by in one step.
    const pages = createRouter();
    for (const mw of early) pages.use(mw);
    app.use(notUnder(apiPrefix, pages));
  } else for (const mw of early) app.use(mw);
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
