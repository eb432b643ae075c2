import type express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { idParam } from '../../src/commerce/schemas/common.js';
import { loadConfig } from '../../src/config.js';
import { CanvasItemParams } from '../../src/content/schemas/campaigns.js';
import { IdParams } from '../../src/content/schemas/common.js';
import { AppError } from '../../src/platform/errors.js';
import {
  createHttpApp,
  createRouter,
  finishHttpApp,
  mountRoutes,
  reply,
  routeKit,
} from '../../src/platform/http/index.js';
import { methodNotAllowed } from '../../src/platform/http/mount.js';
import { quickCheck } from '../../src/platform/http/validation.js';
import { silentLogger } from '../../src/platform/logger.js';
import { type Listening, listen } from '../../src/platform/service.js';
import { type Commerce, sandboxUser, startCommerce } from '../commerce/helpers.js';

/**
 * The hot path's shortcuts (platform/http: the quick check of path parameters, routing by path
 * prefix, writing the JSON answer without express's res.json) must answer exactly what the long
 * way did. Each is held here to the long way: zod's own result, one express router holding every
 * route in order, express's res.json.
 */

const listenApp = (app: express.Express) =>
  listen(
    { name: 'content', app, db: null as never, openapi: {}, startBackground() {}, close: async () => {} },
    '127.0.0.1',
    0,
  );

describe('the quick check of path parameters gives what zod gives', () => {
  const schemas: [string, z.ZodType][] = [
    ['commerce idParam', idParam],
    ['content IdParams', IdParams],
    ['content CanvasItemParams', CanvasItemParams],
    ['plain object', z.object({ id: z.string().min(2) })],
    ['exact length', z.strictObject({ code: z.string().length(3) })],
  ];
  const inputs: unknown[] = [
    { id: 'chk_1' },
    { id: '' },
    { id: 'x' },
    { id: 'x'.repeat(100) },
    { id: 'x'.repeat(101) },
    { id: 'x'.repeat(200) },
    { id: 'x'.repeat(201) },
    { id: 'é😀' },
    { id: 'a', itemId: 'b' },
    { id: 'a', itemId: '' },
    { itemId: 'b' },
    { id: 'abc', extra: 'x' },
    { code: 'abc' },
    { code: 'ab' },
    { id: 1 },
    { id: null },
    { id: undefined },
    {},
    Object.assign(Object.create({ inherited: 'x' }), { id: 'abc' }),
    [],
    null,
    'id',
  ];

  it.each(schemas)(
    '%s: valid input gives zod’s output, anything zod refuses falls back to zod',
    (_, schema) => {
      const quick = quickCheck(schema);
      expect(quick, 'every path-parameter schema of both services takes the quick check').not.toBeNull();
      for (const input of inputs) {
        const slow = schema.safeParse(input);
        const fast = quick?.(input) ?? null;
        if (!slow.success) expect(fast, JSON.stringify(input)).toBeNull();
        if (fast !== null) expect(fast, JSON.stringify(input)).toStrictEqual(slow.data);
      }
    },
  );

  it('leaves to zod what it does not understand', () => {
    for (const schema of [
      z.strictObject({ id: z.string().regex(/^chk_/) }),
      z.strictObject({ id: z.string().trim() }),
      z.strictObject({ id: z.email() }),
      z.strictObject({ id: z.coerce.string() }),
      z.strictObject({ id: z.string().optional() }),
      z.strictObject({ n: z.coerce.number() }),
      z.looseObject({ id: z.string() }),
      z.string(),
    ]) {
      expect(quickCheck(schema)).toBeNull();
    }
  });
});

describe('routing by path prefix answers as one express router holding every route in order', () => {
  let server: Listening;
  const route = routeKit<{ none: null }>();
  const Out = z.object({ op: z.string(), params: z.record(z.string(), z.string()) });
  const at = (method: 'get' | 'post', path: string, operationId: string, params?: z.ZodType) =>
    route({
      method,
      path,
      auth: 'none',
      operationId,
      summary: operationId,
      ...(params ? { params } : {}),
      response: Out,
      handler: ({ req }) => ({ op: operationId, params: { ...req.params } as Record<string, string> }),
    });

  beforeAll(async () => {
    const routes = [
      at('get', '/x/:p', 'xParam'),
      // Registered after `/x/:p`, so never reached: a pattern route keeps its place before a literal one.
      at('get', '/x/lit', 'xLit'),
      at('get', '/y/lit', 'yLit'),
      at('get', '/y/:p', 'yParam'),
      at('post', '/y/lit', 'yLitPost'),
      at('get', '/health', 'health'),
      at('get', '/v1/things/:id', 'thing', z.strictObject({ id: z.string().min(1).max(5) })),
      at('get', '/:any/deep/path', 'anyDeep'),
    ];
    const logger = silentLogger();
    const app = createHttpApp({ logger, bodyLimitBytes: 1024 });
    app.use(mountRoutes(routes, { authenticators: { none: () => null }, validateResponses: true }));
    finishHttpApp(app, logger);
    server = await listenApp(app);
  });
  afterAll(() => server.stop());

  const call = async (method: string, path: string) => {
    const res = await fetch(`${server.url}${path}`, { method });
    return { status: res.status, allow: res.headers.get('allow'), body: await res.json() };
  };

  it.each([
    ['GET', '/x/lit', 'xParam'],
    ['GET', '/x/other', 'xParam'],
    ['GET', '/y/lit', 'yLit'],
    ['POST', '/y/lit', 'yLitPost'],
    ['GET', '/y/zz', 'yParam'],
    ['GET', '/health', 'health'],
    ['GET', '/v1/things/abc', 'thing'],
    ['GET', '/v1/deep/path', 'anyDeep'],
    ['GET', '/health/deep/path', 'anyDeep'],
    ['GET', '/y/deep/path', 'anyDeep'],
  ])('%s %s reaches %s', async (method, path, op) => {
    const res = await call(method, path);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.op).toBe(op);
  });

  it.each([
    ['/Y/lit'],
    ['/y/lit/'],
    ['/health/'],
    ['/HEALTH'],
    ['/v1/things'],
    ['/v1/things/abc/'],
    ['/nowhere'],
  ])('GET %s is a 404: matching stays case-sensitive and strict', async (path) => {
    const res = await call('GET', path);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('ROUTE_NOT_FOUND');
  });

  it('answers a wrong method with 405 and the Allow of the path it matched', async () => {
    expect(await call('DELETE', '/y/lit')).toMatchObject({ status: 405, allow: 'GET, POST' });
    expect(await call('DELETE', '/y/zz')).toMatchObject({ status: 405, allow: 'GET' });
    expect(await call('POST', '/x/lit')).toMatchObject({ status: 405, allow: 'GET' });
  });

  it('still names the parameter zod refuses, in the same words', async () => {
    const res = await call('GET', '/v1/things/abcdef');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: "'id' is invalid: Too big: expected string to have <=5 characters.",
      param: 'id',
    });
  });
});

describe('the route table answers every request as one express router holding every route', () => {
  // The same routes twice: through mountRoutes (the route table, express for what it leaves),
  // and as one plain express router in declared order with a 405 layer per path after them.
  type Def = {
    method: 'get' | 'post' | 'delete';
    path: string;
    op: string;
    before?: boolean;
    fails?: boolean;
  };
  const defs: Def[] = [
    { method: 'get', path: '/x/:p', op: 'xParam' },
    { method: 'get', path: '/x/lit', op: 'xLit' },
    { method: 'get', path: '/y/lit', op: 'yLit' },
    { method: 'post', path: '/y/lit', op: 'yLitPost' },
    { method: 'get', path: '/y/:p', op: 'yParam' },
    { method: 'delete', path: '/y/:p', op: 'yDelete' },
    { method: 'get', path: '/y/:p/sub/:q', op: 'ySub' },
    { method: 'post', path: '/only/post', op: 'onlyPost' },
    { method: 'get', path: '/guarded/:id', op: 'guarded', before: true },
    { method: 'get', path: '/guarded/open', op: 'guardedOpen' },
    { method: 'get', path: '/fails/:id', op: 'fails', fails: true },
    { method: 'get', path: '/v1/things/:id', op: 'thing' },
    { method: 'get', path: '/v1/things/:id.json', op: 'thingJson' },
    { method: 'get', path: '/v1/files/*rest', op: 'files' },
    { method: 'get', path: '/:any/deep/path', op: 'anyDeep' },
  ];
  const answer = (op: string, req: express.Request) => ({
    op,
    params: { ...req.params } as Record<string, unknown>,
    hooked: req.get('x-hooked') ?? null,
  });
  // Middleware of a route's own: it may answer or pass on, as the dashboard's guard does.
  const hook: express.RequestHandler = (req, res, next) => {
    if (req.query.stop !== undefined) res.status(403).json({ stopped: true });
    else {
      req.headers['x-hooked'] = 'yes';
      next();
    }
  };
  const failure = () => new AppError(409, 'CONFLICT', 'This one always fails.');
  let ours: Listening;
  let theirs: Listening;

  beforeAll(async () => {
    const route = routeKit<{ none: null }>();
    const routes = defs.map((d) =>
      route({
        method: d.method,
        path: d.path,
        auth: 'none',
        operationId: d.op,
        summary: d.op,
        query: z.strictObject({ stop: z.string().optional() }),
        response: z.any(),
        ...(d.before ? { before: [hook] } : {}),
        handler: ({ req }) => {
          if (d.fails) throw failure();
          return answer(d.op, req);
        },
      }),
    );
    const logger = silentLogger();
    const app = createHttpApp({ logger, bodyLimitBytes: 1024 });
    app.use(mountRoutes(routes, { authenticators: { none: () => null } }));
    finishHttpApp(app, logger);
    ours = await listenApp(app);

    const reference = createHttpApp({ logger, bodyLimitBytes: 1024 });
    const router = createRouter();
    for (const d of defs) {
      router[d.method](d.path, ...(d.before ? [hook] : []), (req, res) => {
        if (d.fails) throw failure();
        res.json(answer(d.op, req));
      });
    }
    for (const path of new Set(defs.map((d) => d.path))) {
      const allow = [...new Set(defs.filter((d) => d.path === path).map((d) => d.method.toUpperCase()))].join(
        ', ',
      );
      router.all(path, methodNotAllowed(allow));
    }
    reference.use(router);
    finishHttpApp(reference, logger);
    theirs = await listenApp(reference);
  });
  afterAll(async () => {
    await ours.stop();
    await theirs.stop();
  });

  const paths = [
    '/x/lit',
    '/x/other',
    '/x/',
    '/x',
    '/x/a/b',
    '/y/lit',
    '/y/LIT',
    '/y/lit/',
    '/y/zz',
    '/y/a.b~c+d',
    '/y/a%20b',
    '/y/l%69t',
    '/y/%E0%A4%A',
    '/y/%',
    '/y//',
    '//y/lit',
    '/y/1/sub/2',
    '/y/1/sub/',
    '/y/1/sub/2/',
    '/only/post',
    '/guarded/1',
    '/guarded/1?stop',
    '/guarded/open',
    '/fails/1',
    '/v1/things/abc',
    '/v1/things/abc.json',
    '/v1/files/a/b/c',
    '/v1/deep/path',
    '/health/deep/path',
    '/nowhere',
    '/',
    '/x/lit?stop=1',
  ];
  const methods = ['GET', 'HEAD', 'POST', 'DELETE', 'PUT', 'OPTIONS'];

  const call = async (base: string, method: string, path: string) => {
    const res = await fetch(`${base}${path}`, { method });
    const text = await res.text();
    const body = text ? JSON.parse(text) : null;
    if (body?.error) delete body.error.request_id;
    return {
      status: res.status,
      allow: res.headers.get('allow'),
      type: res.headers.get('content-type'),
      length: res.headers.get('content-length'),
      body,
    };
  };

  it.each(methods)(
    '%s: the same status, Allow, content type, length and body for every path',
    async (method) => {
      for (const path of paths) {
        const [a, b] = [await call(ours.url, method, path), await call(theirs.url, method, path)];
        expect(a, `${method} ${path}`).toEqual(b);
      }
    },
  );

  it('reaches each kind of answer (the comparison is not between two 404s)', async () => {
    const statuses = new Set<number>();
    for (const path of paths) statuses.add((await call(ours.url, 'GET', path)).status);
    expect([...statuses].sort()).toEqual([200, 400, 403, 404, 405, 409]);
    expect((await call(ours.url, 'GET', '/guarded/1')).body).toMatchObject({ op: 'guarded', hooked: 'yes' });
    expect((await call(ours.url, 'GET', '/y/a%20b')).body.params).toEqual({ p: 'a b' });
  });
});

describe('a JSON answer is what express’s res.json sends', () => {
  let server: Listening;
  const route = routeKit<{ none: null }>();
  const body = { text: 'é € 😀 <tag> "q"', n: 1.5, list: [null, true], nested: { empty: {} } };

  beforeAll(async () => {
    const logger = silentLogger();
    const app = createHttpApp({ logger, bodyLimitBytes: 1024 });
    app.get('/express', (_req, res) => {
      res.set({ 'X-Extra': 'yes' });
      res.status(201).json(body);
    });
    app.use(
      mountRoutes(
        [
          route({
            method: 'get',
            path: '/svc',
            auth: 'none',
            operationId: 'svc',
            summary: 'svc',
            response: z.any(),
            handler: () => reply(body, { status: 201, headers: { 'X-Extra': 'yes' } }),
          }),
        ],
        { authenticators: { none: () => null } },
      ),
    );
    finishHttpApp(app, logger);
    server = await listenApp(app);
  });
  afterAll(() => server.stop());

  const raw = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}${path}`, init);
    const h = res.headers;
    return {
      status: res.status,
      headers: ['content-type', 'content-length', 'x-extra', 'etag', 'transfer-encoding'].map((n) =>
        h.get(n),
      ),
      text: await res.text(),
    };
  };

  it.each([
    ['GET', {}],
    ['HEAD', {}],
    ['GET', { 'if-none-match': '*' }],
    ['GET', { 'if-modified-since': new Date().toUTCString() }],
  ])('%s with %j: the same status, headers and bytes', async (method, headers) => {
    const [ours, theirs] = [
      await raw('/svc', { method, headers }),
      await raw('/express', { method, headers }),
    ];
    expect(ours).toEqual(theirs);
  });

  it('sends the body JSON encodes, with its length in bytes', async () => {
    const res = await raw('/svc');
    expect(res.status).toBe(201);
    expect(res.headers[0]).toBe('application/json; charset=utf-8');
    expect(JSON.parse(res.text)).toEqual(body);
    expect(Number(res.headers[1])).toBe(Buffer.byteLength(res.text));
  });
});

describe('response validation is for development and tests', () => {
  it('is off unless SERVICE_VALIDATE_RESPONSES turns it on', () => {
    expect(loadConfig({}).validateResponses).toBe(false);
    expect(loadConfig({ SERVICE_VALIDATE_RESPONSES: '1' }).validateResponses).toBe(true);
    expect(() => loadConfig({ SERVICE_VALIDATE_RESPONSES: 'yes' })).toThrow(/SERVICE_VALIDATE_RESPONSES/);
  });
});

describe('GET /v1/checkouts/{id} keeps its answers on the fast path', () => {
  let c: Commerce;
  let userToken: string;
  beforeAll(async () => {
    c = await startCommerce();
    ({ userToken } = await sandboxUser(c.svc, c.sandboxKey));
  });
  afterAll(() => c.close());

  const get = async (path: string) => {
    const res = await fetch(`${c.svc.url}${path}`, {
      headers: { authorization: `Bearer ${c.sandboxKey}`, 'service-user-token': userToken },
    });
    return { status: res.status, requestId: res.headers.get('service-request-id'), body: await res.json() };
  };

  it('names a too-long id, an unknown query parameter and a missing checkout as before', async () => {
    const long = await get(`/v1/checkouts/${'x'.repeat(201)}`);
    expect(long.status).toBe(400);
    expect(long.body.error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: "'id' is invalid: Too big: expected string to have <=200 characters.",
      param: 'id',
      request_id: long.requestId,
    });
    const query = await get('/v1/checkouts/chk_nope?expand=all');
    expect(query.status).toBe(400);
    expect(query.body.error).toMatchObject({
      message: "Unknown field 'expand' in the query.",
      param: 'expand',
    });
    const missing = await get('/v1/checkouts/chk_nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.request_id).toBe(missing.requestId);
  });
});
