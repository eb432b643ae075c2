// Outside attack on the route table (platform/http/mount.ts): request targets a client library
// would normalise away, sent raw over a socket, must be answered exactly as one plain express
// router holding the same routes (and the route table's NUL rule) answers them, and none may reach a guarded route's handler
// without its guard.
import { connect } from 'node:net';
import type express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createHttpApp,
  createRouter,
  finishHttpApp,
  mountRoutes,
  routeKit,
} from '../../src/platform/http/index.js';
import { methodNotAllowed } from '../../src/platform/http/mount.js';
import { refuseNul } from '../../src/platform/http/nul-text.js';
import { silentLogger } from '../../src/platform/logger.js';
import { type Listening, listen } from '../../src/platform/service.js';

type Method = 'get' | 'post' | 'delete';
const ROUTES: { method: Method; path: string; guarded?: true }[] = [
  { method: 'get', path: '/v1/items/:id' },
  { method: 'post', path: '/v1/items/:id/confirm' },
  { method: 'get', path: '/v1/items/list' },
  { method: 'delete', path: '/v1/items/:id' },
  { method: 'get', path: '/v1/admin/:id', guarded: true },
  { method: 'get', path: '/v1/admin/open' },
  { method: 'get', path: '/:any/deep' },
];

/** The guard of a guarded route: refuses unless the request says `x-pass: 1`. */
const guard: express.RequestHandler = (req, res, next) => {
  if (req.get('x-pass') === '1') next();
  else res.status(403).json({ guarded: true });
};

const TARGETS = [
  '/v1/items/a',
  '/v1/items/./a',
  '/v1/items/../items/a',
  '/./v1/items/a',
  '/v1/items/a;x',
  '/v1/items/a%3Bx',
  '/v1/items/a%2Fconfirm',
  '/v1/items/%2e%2e',
  '/v1/items/..',
  '/v1/items/.',
  '//v1/items/a',
  '/v1/items//a',
  '/v1/items/a/',
  '/v1/items/a/.',
  '/V1/items/a',
  '/v1/items/a%20',
  '/v1/items/%00',
  '/v1/items/a/confirm',
  '/v1/items/a/confirm/',
  '/v1/items/a/CONFIRM',
  '/v1/items/a/confirm%2F',
  '/v1/items/list',
  '/v1/items/lis%74',
  '/v1/admin/1',
  '/v1/admin/open',
  '/v1/admin/%6Fpen',
  '/v1/admin/open;',
  '/v1/admin/open/',
  '/v1/admin//open',
  '/__proto__/deep',
  '/v1/constructor/deep',
  '/v1/items/__proto__',
  'http://h/v1/items/a',
  'v1/items/a',
  '*',
  `/v1/items/${'a'.repeat(8000)}`,
  `/v1/items/${'a/'.repeat(3000)}`,
];
const METHODS = ['GET', 'HEAD', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'PROPFIND'];

const listenApp = (app: express.Express) =>
  listen(
    { name: 'content', app, db: null as never, openapi: {}, startBackground() {}, close: async () => {} },
    '127.0.0.1',
    0,
  );

/** One raw HTTP/1.1 request: the status line, Allow, type and length, and the body without its request id. */
function raw(url: string, method: string, target: string, headers = ''): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', ...body] = data.split('\r\n\r\n');
      const kept = head
        .split('\r\n')
        .filter((l) => /^(HTTP\/|allow:|content-type:|content-length:)/i.test(l));
      resolve([...kept, body.join('\r\n\r\n').replace(/"request_id":"[^"]*"/, '')].join('\n'));
    });
    socket.write(
      `${method} ${target} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\nContent-Length: 0\r\n\r\n`,
    );
  });
}

describe('raw request targets: the route table answers as a plain express router', () => {
  let ours: Listening;
  let theirs: Listening;
  const answer = (op: string, req: express.Request) => ({ op, params: { ...req.params } });

  beforeAll(async () => {
    const logger = silentLogger();
    const route = routeKit<{ none: null }>();
    const app = createHttpApp({ logger, bodyLimitBytes: 1024 });
    app.use(
      mountRoutes(
        ROUTES.map((r) =>
          route({
            method: r.method,
            path: r.path,
            auth: 'none',
            operationId: `${r.method} ${r.path}`,
            summary: r.path,
            response: z.any(),
            ...(r.guarded ? { before: [guard] } : {}),
            handler: ({ req }) => answer(`${r.method} ${r.path}`, req),
          }),
        ),
        { authenticators: { none: () => null } },
      ),
    );
    finishHttpApp(app, logger);
    ours = await listenApp(app);

    const reference = createHttpApp({ logger, bodyLimitBytes: 1024 });
    const router = createRouter();
    for (const r of ROUTES)
      router[r.method](r.path, ...(r.guarded ? [guard] : []), (req, res) => {
        // The route table's one rule of its own (nul-text.ts): U+0000 in the query or a path
        // parameter is a 400, after the guards, before the handler.
        refuseNul(req.query, 'query');
        refuseNul(req.params, 'path');
        res.json(answer(`${r.method} ${r.path}`, req));
      });
    for (const path of new Set(ROUTES.map((r) => r.path)))
      router.all(
        path,
        methodNotAllowed(
          ROUTES.filter((r) => r.path === path)
            .map((r) => r.method.toUpperCase())
            .join(', '),
        ),
      );
    reference.use(router);
    finishHttpApp(reference, logger);
    theirs = await listenApp(reference);
  });
  afterAll(async () => {
    await ours?.stop();
    await theirs?.stop();
  });

  it.each(METHODS)('%s: the same answer for every target', async (method) => {
    for (const target of TARGETS) {
      expect(await raw(ours.url, method, target), `${method} ${target.slice(0, 60)}`).toBe(
        await raw(theirs.url, method, target),
      );
    }
  });

  it('reaches no guarded handler without its guard, whatever the spelling', async () => {
    const reached: string[] = [];
    for (const target of TARGETS) {
      const answer = await raw(ours.url, 'GET', target);
      if (answer.includes('get /v1/admin/:id')) reached.push(target);
    }
    expect(reached).toEqual([]);
    // The guard is what refused: with it satisfied the same spellings reach the handler.
    expect(await raw(ours.url, 'GET', '/v1/admin/1', 'x-pass: 1\r\n')).toContain('get /v1/admin/:id');
    expect(await raw(ours.url, 'GET', '/v1/admin/1')).toContain('"guarded":true');
  });
});
