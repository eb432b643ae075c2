import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../src/platform/errors.js';
import { createHttpApp, finishHttpApp, mountRoutes, reply, routeKit } from '../../src/platform/http/index.js';
import { silentLogger } from '../../src/platform/logger.js';
import { type Listening, listen } from '../../src/platform/service.js';
import { ADDRESS, BUYER, makeKey, PROTOCOL, sandboxUser } from '../commerce/helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/**
 * `validateResponses` (on in tests and development) holds every response a handler returns to
 * its declared schema exactly: a field the schema does not declare fails the request loudly,
 * even though zod's plain objects would strip it silently.
 */
describe('responses are checked against their declared schemas', () => {
  let server: Listening;
  const logged: { err: Error }[] = [];
  const logger = { ...silentLogger(), error: (obj: { err: Error }) => logged.push(obj) } as never;
  const route = routeKit<{ none: null }>();
  const Item = z.object({ id: z.string(), tags: z.array(z.object({ name: z.string() })) });

  beforeAll(async () => {
    const routes = [
      route({
        method: 'get',
        path: '/ok',
        auth: 'none',
        operationId: 'ok',
        summary: 'ok',
        response: Item,
        handler: () => ({ id: 'a', tags: [{ name: 't' }] }),
      }),
      route({
        method: 'get',
        path: '/extra-top',
        auth: 'none',
        operationId: 'extraTop',
        summary: 'extra',
        response: Item,
        handler: () => ({ id: 'a', tags: [], mode: 'sandbox' }) as z.input<typeof Item>,
      }),
      route({
        method: 'get',
        path: '/extra-deep',
        auth: 'none',
        operationId: 'extraDeep',
        summary: 'extra',
        response: Item,
        handler: () => ({ id: 'a', tags: [{ name: 't', secret: 'x' }] }) as unknown as z.input<typeof Item>,
      }),
      route({
        method: 'get',
        path: '/wrong-type',
        auth: 'none',
        operationId: 'wrongType',
        summary: 'wrong',
        response: Item,
        handler: () => ({ id: 1, tags: [] }) as unknown as z.input<typeof Item>,
      }),
      route({
        method: 'get',
        path: '/bad-error',
        auth: 'none',
        operationId: 'badError',
        summary: 'an error body outside the error shape',
        response: Item,
        handler: () => reply({ oops: true } as unknown as z.input<typeof Item>, { status: 409 }),
      }),
      route({
        method: 'get',
        path: '/thrown',
        auth: 'none',
        operationId: 'thrown',
        summary: 'a thrown AppError is rendered in the error shape',
        response: Item,
        handler: () => {
          throw new AppError(409, 'NOPE', 'No.');
        },
      }),
    ];
    const app = createHttpApp({ logger, bodyLimitBytes: 1024 });
    app.use(mountRoutes(routes, { authenticators: { none: () => null }, validateResponses: true }));
    finishHttpApp(app, logger);
    server = await listen(
      { name: 'content', app, db: null as never, openapi: {}, startBackground() {}, close: async () => {} },
      '127.0.0.1',
      0,
    );
  });
  afterAll(() => server.stop());

  it('lets a response that matches exactly through', async () => {
    const res = await api(server.url, 'GET', '/ok');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'a', tags: [{ name: 't' }] });
  });

  it.each([
    ['/extra-top', "undeclared field 'mode'"],
    ['/extra-deep', "undeclared field 'tags[0].secret'"],
    ['/wrong-type', "'id'"],
    ['/bad-error', "'error'"],
  ])('fails GET %s with a 500 instead of sending it', async (path, problem) => {
    const res = await api(server.url, 'GET', path);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(res.body)).not.toContain('sandbox');
    expect(logged.at(-1)?.err.message).toContain(problem);
  });

  it('leaves thrown errors in the error shape alone', async () => {
    const res = await api(server.url, 'GET', '/thrown');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('NOPE');
  });
});

describe('content: POST /v1/sandbox/clock/advance answers exactly its declared schema', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  it('has no undeclared mode field', async () => {
    const res = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 1 } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      ['automations', 'failed', 'now', 'offset_ms', 'published', 'settled', 'snapshots'].sort(),
    );
  });
});

/**
 * Every GET of both services, on a workspace with data in it, answers without a 500: with
 * `validateResponses` on, a response that strays from its declared schema is a 500, so this
 * sweep holds every read route's schema to what it really returns. Ids come from the lists.
 */
describe.each(['content', 'commerce'] as const)('%s: every GET answers within its schema', (name) => {
  let svc: TestService;
  let headers: Record<string, string> = {};
  /** Ids of objects that have no list route to find them in. */
  const known: Record<string, string> = {};
  beforeAll(async () => {
    svc = await startTestService(name, { config: { seed: 'demo' } });
    if (name === 'commerce') {
      const key = await makeKey(svc, 'sandbox');
      const { userToken, call } = await sandboxUser(svc, key);
      headers = { authorization: `Bearer ${key}`, 'service-user-token': userToken };
      // Something to read: an offer, a checkout and the order it placed.
      const offer = await call('POST', '/v1/offers', { url: `${PROTOCOL}/globe` });
      const checkout = await call('POST', '/v1/checkouts', {
        product_url: `${PROTOCOL}/globe`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      });
      await call('POST', `/v1/checkouts/${checkout.body.id}/confirm`);
      known['/v1/offers'] = offer.body.id;
      known['/v1/checkouts'] = checkout.body.id;
    }
  });
  afterAll(() => svc.close());

  const firstId = async (listPath: string): Promise<string | undefined> => {
    const res = await api(svc.url, 'GET', listPath, { headers });
    if (res.status !== 200 || typeof res.body !== 'object' || res.body === null) return undefined;
    const list = Object.values(res.body).find(Array.isArray) as { id?: string }[] | undefined;
    return list?.find((item) => typeof item?.id === 'string')?.id;
  };

  it('answers every GET operation without a schema mismatch', async () => {
    const doc = (await api(svc.url, 'GET', '/v1/openapi.json')).body;
    const paths = Object.keys(doc.paths).filter((p) => doc.paths[p].get);
    let ok = 0;
    for (const path of paths) {
      const [, collection] = /^(\/v1\/[a-z-_]+)\/\{id\}/.exec(path) ?? [];
      const id = collection ? (known[collection] ?? (await firstId(collection)) ?? 'zz') : 'zz';
      const url = path.replace('{id}', id).replace('{version}', '1').replace('{platform}', 'x');
      const res = await api(svc.url, 'GET', url, { headers });
      expect(res.status, `GET ${url}: ${JSON.stringify(res.body)}`).not.toBe(500);
      if (res.status === 200) ok += 1;
    }
    // Content: all but the OAuth callback (always an error) and the media reads (no media in the demo).
    expect(ok).toBeGreaterThanOrEqual(name === 'content' ? paths.length - 4 : paths.length);
  });
});

describe('query schemas are strict by declaration', () => {
  const route = routeKit<{ none: null }>();
  const withQuery = (query: z.ZodType) =>
    route({
      method: 'get',
      path: '/q',
      auth: 'none',
      operationId: 'q',
      summary: 'q',
      query,
      response: z.object({}),
      handler: () => ({}),
    });

  it('refuses to mount a route whose query schema would let unknown parameters through', () => {
    for (const lax of [z.object({ a: z.string().optional() }), z.looseObject({ a: z.string().optional() })]) {
      expect(() => mountRoutes([withQuery(lax)], { authenticators: { none: () => null } })).toThrow(
        /must be a z.strictObject/,
      );
    }
    expect(() =>
      mountRoutes([withQuery(z.strictObject({ a: z.string().optional() }))], {
        authenticators: { none: () => null },
      }),
    ).not.toThrow();
  });
});
