import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../src/platform/errors.js';
import { createHttpApp, finishHttpApp, mountRoutes, reply, routeKit } from '../../src/platform/http/index.js';
import { silentLogger } from '../../src/platform/logger.js';
import { type Listening, listen } from '../../src/platform/service.js';
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
