import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { AppError } from '../errors.js';
import { ROUTER_OPTIONS } from './app.js';
import { ErrorBody, sendError } from './errors-middleware.js';
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
  /**
   * When set, every response a handler returns is checked against its declared schema, unknown
   * fields included, and a mismatch fails the request with a 500 (tests and development).
   */
  validateResponses?: boolean;
}

export function mountRoutes<AuthMap extends Record<string, unknown>>(
  routes: readonly AnyRoute<AuthMap>[],
  opts: MountOptions<AuthMap>,
): Router {
  const router = express.Router(ROUTER_OPTIONS);
  const methodsByPath = new Map<string, Set<string>>();

  for (const route of routes) {
    assertStrictQuery(route);
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
    // A route without a query schema takes no query parameters at all. The query is checked
    // first: an unknown parameter is named even when a path parameter is wrong too.
    const query = validate(route.query ?? noQuery, req.query, 'query');
    const params = route.params ? validate(route.params, req.params, 'params') : undefined;
    const input = {
      params,
      query: route.query ? query : undefined,
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

    if (opts.validateResponses) checkResponse(route, result);
    res.set(result.headers);
    if (result.status === 204) res.status(204).end();
    else res.status(result.status).json(result.body);
  };
}

const noQuery = z.strictObject({});

/**
 * "Unknown fields are rejected" holds for query strings too: a query schema that is an object
 * must be a `z.strictObject`. Checked when the routes are mounted, so a lax one never ships.
 */
function assertStrictQuery(route: AnyRoute): void {
  const query = route.query as z.ZodType | undefined;
  if (!(query instanceof z.ZodObject)) return;
  const catchall = query.def.catchall;
  if (catchall?._zod.def.type !== 'never') {
    throw new Error(
      `Route ${route.method.toUpperCase()} ${route.path}: its query schema must be a z.strictObject, so unknown query parameters are refused.`,
    );
  }
}

/**
 * The response as the client will see it (JSON round trip) must parse with the declared schema
 * and lose nothing doing so: zod's plain objects strip unknown keys, so a field the schema does
 * not declare is found by comparing what was sent with what the parse kept.
 */
function checkResponse(route: AnyRoute, result: RouteResult): void {
  if (result.status === 204) return;
  const sent: unknown = result.body === undefined ? undefined : JSON.parse(JSON.stringify(result.body));
  // An error (a replayed one, from the idempotency wrapper) is held to the error shape instead.
  const schema = result.status >= 400 ? ErrorBody : (route.response as z.ZodType);
  const check = schema.safeParse(sent);
  const problems = check.success
    ? strayKeys(sent, check.data, '').map((path) => `undeclared field '${path}'`)
    : check.error.issues.slice(0, 3).map((i) => `'${i.path.join('.')}': ${i.message}`);
  if (problems.length > 0) {
    throw new Error(
      `Response ${result.status} of ${route.operationId} (${route.method.toUpperCase()} ${route.path}) does not match its declared schema: ${problems.slice(0, 5).join('; ')}.`,
    );
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Paths of keys present in `sent` that the parsed output dropped. */
function strayKeys(sent: unknown, kept: unknown, at: string): string[] {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    return sent.flatMap((item, i) => strayKeys(item, kept[i], `${at}[${i}]`));
  }
  if (!isPlainObject(sent) || !isPlainObject(kept)) return [];
  return Object.keys(sent).flatMap((key) => {
    const path = at ? `${at}.${key}` : key;
    return key in kept ? strayKeys(sent[key], kept[key], path) : [path];
  });
}
