import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { jsonOf } from '../deep-frozen.js';
import { AppError } from '../errors.js';
import { ROUTER_OPTIONS } from './app.js';
import { entityTagOf, noneMatchFails } from './conditional.js';
import { ErrorBody, sendError } from './errors-middleware.js';
import { checkJsonDepth } from './json-depth.js';
import { refuseNul } from './nul-text.js';
import { type AnyRoute, type HandlerInput, type HttpMethod, Reply } from './route.js';
import { emptyBody, validate, validator } from './validation.js';

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
): RequestHandler {
  const layers: Layer[] = [];
  const methodsByPath = new Map<string, Set<string>>();

  for (const route of routes) {
    assertStrictQuery(route);
    const methods = methodsByPath.get(route.path) ?? new Set<string>();
    methods.add(route.method.toUpperCase());
    methodsByPath.set(route.path, methods);
    const handler = handle(route, opts);
    layers.push({
      path: route.path,
      method: route.method,
      // A route with middleware of its own (a guard, a multipart parser) is left to express.
      run: route.before?.length ? null : handler,
      add: (router) => router[route.method](route.path, ...(route.before ?? []), handler),
    });
  }

  // A known path with the wrong method is a 405 with Allow, not a misleading 404.
  for (const [path, methods] of methodsByPath) {
    const refuse = methodNotAllowed([...methods].join(', '));
    layers.push({ path, method: null, run: refuse, add: (router) => router.all(path, refuse) });
  }
  return routeByPrefix(layers);
}

/** The 405 answer of a known path, naming the methods it takes in `Allow`. */
export function methodNotAllowed(allow: string): RequestHandler {
  return (req, res) => {
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
  };
}

/** One express route (or 405 answer) to add to a router, with the path it matches. */
interface Layer {
  path: string;
  /** The route's method (it answers HEAD too when GET), or null for every method (the 405s). */
  method: HttpMethod | null;
  /** The handler when it is the layer's only one, for the route table (`dispatch`). */
  run: RequestHandler | null;
  add: (router: Router) => void;
}

/** Characters that make a path segment a pattern (path-to-regexp's syntax) rather than literal text. */
const PATTERN = /[:*?+(){}[\]!\\]/;

/** The first two segments of a path: `/v1/checkouts/ch_1` → `/v1/checkouts`, `/health` → `/health`. */
function prefixOf(path: string): string {
  const second = path.indexOf('/', 1);
  if (second === -1) return path;
  const third = path.indexOf('/', second + 1);
  return third === -1 ? path : path.slice(0, third);
}

/**
 * The same routing as one express router holding every layer in order, without walking them
 * all: a router with ~80 layers tests each one's regular expression in turn, and that walk was
 * a tenth of a cheap GET's CPU. Layers are grouped by their path's first two segments when
 * those are literal text; a request can only match layers of its own group (matching is
 * case-sensitive and strict, ROUTER_OPTIONS), so each group's router holds its layers and every
 * pattern-prefixed one (`/oauth/:platform`), in their original order, and a request walks only
 * its group's. A path of no group walks the pattern-prefixed layers alone.
 */
function routeByPrefix(layers: readonly Layer[]): RequestHandler {
  const keyOf = (path: string) => {
    const prefix = prefixOf(path);
    return PATTERN.test(prefix) ? null : prefix;
  };
  const keys = new Set(layers.map((l) => keyOf(l.path)).filter((k): k is string => k !== null));
  const build = (key: string | null) => {
    const mine = layers.filter((layer) => {
      const k = keyOf(layer.path);
      return k === null || k === key;
    });
    const router = express.Router(ROUTER_OPTIONS);
    for (const layer of mine) layer.add(router);
    return dispatch(mine, router);
  };
  const groups = new Map([...keys].map((key) => [key, build(key)]));
  const rest = layers.some((l) => keyOf(l.path) === null) ? build(null) : null;
  return (req, res, next) => {
    const group = groups.get(prefixOf(req.path)) ?? rest;
    if (group) group(req, res, next);
    else next();
  };
}

/**
 * A group's layers as a route table, in their order: the first layer whose path and method
 * match the request answers it, as in express's router, without its per-request work (a
 * nested router's state kept and restored, each layer's regular expression, the route's own
 * dispatch). What the table cannot decide exactly as express would goes to the group's
 * express `router`: a path with a percent-escape (express decodes parameters, and answers a
 * malformed escape with an error), and the first matching layer being one with middleware of
 * its own, or one whose path the table cannot read.
 */
function dispatch(layers: readonly Layer[], router: Router): RequestHandler {
  const table = layers.map((layer) => ({ ...layer, match: matcher(layer.path) }));
  return (req, res, next) => {
    const path = req.path;
    if (path.includes('%')) return router(req, res, next);
    const method = req.method.toLowerCase();
    for (const layer of table) {
      if (!layer.match) return router(req, res, next);
      const params = layer.match(path);
      if (!params) continue;
      // A GET route answers HEAD; a route of another method is passed by, as express does.
      if (layer.method && layer.method !== method && !(method === 'head' && layer.method === 'get')) continue;
      if (!layer.run) return router(req, res, next);
      req.params = params;
      return runHandler(layer.run, req, res, next);
    }
    next();
  };
}

/** A handler run as express's router runs one: a throw or a rejected promise goes to `next`. */
function runHandler(
  handler: RequestHandler,
  req: Request,
  res: Response,
  next: (err?: unknown) => void,
): void {
  try {
    const ret: unknown = handler(req, res, next);
    if (ret instanceof Promise)
      ret.then(undefined, (err: unknown) => next(err || new Error('Rejected promise')));
  } catch (err) {
    next(err);
  }
}

/** A segment that is one named parameter and nothing else, as path-to-regexp reads `:id`. */
const PARAM = /^:([A-Za-z_$][\w$]*)$/;

/**
 * Matches an express path made of literal segments and whole-segment parameters (`/v1/x/:id`)
 * as path-to-regexp does with ROUTER_OPTIONS (case-sensitive, strict, to the end): the same
 * number of segments, literal ones equal, each parameter one or more characters. Parameters
 * come as express gives them: an object without a prototype. Null for any other syntax.
 */
function matcher(path: string): ((requestPath: string) => Record<string, string> | null) | null {
  const segments = path.split('/');
  const names = segments.map((segment) => PARAM.exec(segment)?.[1] ?? null);
  if (segments.some((segment, i) => names[i] === null && PATTERN.test(segment))) return null;
  return (requestPath) => {
    const parts = requestPath.split('/');
    if (parts.length !== segments.length) return null;
    const params: Record<string, string> = Object.create(null);
    for (let i = 0; i < parts.length; i++) {
      const name = names[i];
      const part = parts[i] as string;
      if (name === null || name === undefined) {
        if (part !== segments[i]) return null;
      } else if (part === '') return null;
      else params[name] = part;
    }
    return params;
  };
}

function handle<AuthMap extends Record<string, unknown>>(
  route: AnyRoute<AuthMap>,
  opts: MountOptions<AuthMap>,
): RequestHandler {
  const authenticate = opts.authenticators[route.auth as keyof AuthMap];
  if (!authenticate)
    throw new Error(`Route ${route.method} ${route.path} uses unknown auth '${String(route.auth)}'.`);

  const checkQuery = validator(route.query ?? noQuery, 'query');
  const checkParams = route.params ? validator(route.params, 'params') : null;
  return async (req: Request, res: Response) => {
    const auth = await authenticate(req);
    if (route.method !== 'get') {
      checkJsonDepth(req.body);
      refuseNul(req.body, 'body');
    }
    // express parses the query on every read of `req.query`: read once.
    const rawQuery = req.query;
    refuseNul(rawQuery, 'query');
    refuseNul(req.params, 'path');
    // A route without a query schema takes no query parameters at all. The query is checked
    // first: an unknown parameter is named even when a path parameter is wrong too.
    const query = checkQuery(rawQuery);
    const params = checkParams ? checkParams(req.params) : undefined;
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
    await send(req, res, result, route.etag === true);
  };
}

/**
 * Answers with the handler's result: what `res.set(headers).status(s).json(body)` sends, byte
 * for byte, without express's per-response work that cannot change a JSON answer here
 * (looking up the content type's charset, re-parsing the header it just set, the ETag setting).
 * A conditional GET or HEAD is decided here too, on the kept text (http/conditional.ts): a 304
 * never serialises the body, and a 200 sends the kept bytes. If-Modified-Since is ignored, as
 * RFC 9110 13.1.3 says of a resource without a modification date (no answer here has one).
 * Anything else express may change (a handler's own Content-Type, a body JSON cannot encode, a
 * 204, 205 or 304 of the handler's own) goes through express as before.
 */
const SET_BY_EXPRESS = new Set(['content-type', 'content-length', 'transfer-encoding']);

async function send(req: Request, res: Response, result: RouteResult, tagged: boolean): Promise<void> {
  const names = Object.keys(result.headers);
  const plain = result.status !== 204 && result.status !== 205 && result.status !== 304;
  const ownHeaders = names.some((name) => SET_BY_EXPRESS.has(name.toLowerCase()));
  const noneMatch = req.headers['if-none-match'];
  // RFC 9110 13.2.1: preconditions are for a 2xx answer, and If-None-Match's 304 for GET and HEAD.
  const conditional =
    noneMatch !== undefined && result.status === 200 && (req.method === 'GET' || req.method === 'HEAD');
  // `*` is decided without the text: there is a representation, so 304 (RFC 9110 13.1.2).
  if (conditional && !ownHeaders && !tagged && noneMatchFails(noneMatch, null)) {
    return notModified(res, result, names, null);
  }
  // A constant answer (`deepFrozen`, such as GET /v1/agents') is serialised once, not per request.
  const text = plain ? jsonOf(result.body) : undefined;
  if (text === undefined || ownHeaders) {
    res.set(result.headers);
    if (result.status === 204) res.status(204).end();
    else res.status(result.status).json(result.body);
    return;
  }
  const etag = tagged && result.status === 200 ? await entityTagOf(text) : null;
  if (conditional && noneMatchFails(noneMatch, etag)) return notModified(res, result, names, etag);
  for (const name of names) res.setHeader(name, String(result.headers[name]));
  if (etag) res.setHeader('ETag', etag);
  res.status(result.status);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/** 304: the headers the 200 would have had but its body's (RFC 9110 15.4.5), and its ETag. */
function notModified(res: Response, result: RouteResult, names: string[], etag: string | null): void {
  for (const name of names) res.setHeader(name, String(result.headers[name]));
  if (etag) res.setHeader('ETag', etag);
  res.status(304).end();
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
