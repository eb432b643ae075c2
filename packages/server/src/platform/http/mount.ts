import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { AppError } from '../errors.js';
import { ROUTER_OPTIONS } from './app.js';
import { sendError } from './errors-middleware.js';
import { checkJsonDepth } from './json-depth.js';
import { type AnyRoute, type HandlerInput, Reply } from './route.js';
import { emptyBody, validate } from './validation.js';

export type Authenticators<AuthMap extends Record<string, unknown>> = {
  [K in keyof AuthMap]: (req: Request) => Promise<AuthMap[K]> | AuthMap[K];
};

export interface RouteResult {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * Runs around every handler once the request is authenticated and valid. The commerce
 * service uses it for idempotency; validation failures never reach it, so they are never stored.
 */
export type RouteWrapper<AuthMap extends Record<string, unknown>> = (
  ctx: { route: AnyRoute<AuthMap>; input: HandlerInput<AuthMap[keyof AuthMap], unknown, unknown, unknown> },
  run: () => Promise<RouteResult>,
) => Promise<RouteResult>;

export interface MountOptions<AuthMap extends Record<string, unknown>> {
  authenticators: Authenticators<AuthMap>;
  wrap?: RouteWrapper<AuthMap>;
  /** When set, every response is checked against its declared schema (tests and development). */
  validateResponses?: boolean;
}

export function mountRoutes<AuthMap extends Record<string, unknown>>(
  routes: readonly AnyRoute<AuthMap>[],
  opts: MountOptions<AuthMap>,
): Router {
  const router = express.Router(ROUTER_OPTIONS);
  const methodsByPath = new Map<string, Set<string>>();

  for (const route of routes) {
    const methods = methodsByPath.get(route.path) ?? new Set<string>();
    methods.add(route.method.toUpperCase());
    methodsByPath.set(route.path, methods);
    router[route.method](route.path, ...(route.before ?? []), handle(route, opts));
  }

  // A known path with the wrong method is a 405 with Allow, not a misleading 404.
  for (const [path, methods] of methodsByPath) {
    const allow = [...methods].join(', ');
    router.all(path, (req, res) => {
      sendError(
        req,
        res,
        new AppError(
          405,
          'METHOD_NOT_ALLOWED',
          `${req.method} is not allowed on ${req.path}. Allowed: ${allow}.`,
          {
            headers: { Allow: allow },
          },
        ),
      );
    });
  }
  return router;
}

function handle<AuthMap extends Record<string, unknown>>(
  route: AnyRoute<AuthMap>,
  opts: MountOptions<AuthMap>,
): RequestHandler {
  const authenticate = opts.authenticators[route.auth as keyof AuthMap];
  if (!authenticate)
    throw new Error(`Route ${route.method} ${route.path} uses unknown auth '${String(route.auth)}'.`);

  return async (req: Request, res: Response) => {
    const auth = await authenticate(req);
    if (route.method !== 'get') checkJsonDepth(req.body);
    const input = {
      params: route.params ? validate(route.params, req.params, 'params') : undefined,
      query: route.query ? validate(route.query, req.query, 'query') : undefined,
      body:
        route.method === 'get'
          ? undefined
          : validate(route.body ?? emptyBody.optional(), route.body ? (req.body ?? {}) : req.body, 'body'),
      auth,
      requestId: req.requestId,
      req,
    };

    const run = async (): Promise<RouteResult> => {
      const out = await route.handler(input);
      const result = out instanceof Reply ? out : new Reply(out);
      return {
        status: result.status ?? route.status ?? 200,
        body: result.body,
        headers: result.headers ?? {},
      };
    };
    const result = opts.wrap ? await opts.wrap({ route, input }, run) : await run();

    if (opts.validateResponses && result.status < 300) {
      const check = route.response.safeParse(result.body);
      if (!check.success) {
        throw new Error(
          `Response of ${route.operationId} does not match its schema: ${JSON.stringify(check.error.issues.slice(0, 3))}`,
        );
      }
    }
    res.set(result.headers);
    if (result.status === 204) res.status(204).end();
    else res.status(result.status).json(result.body);
  };
}
