import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApi, lazyOpenApi } from '../../src/platform/http/openapi.js';
import type { AnyRoute } from '../../src/platform/http/route.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

describe('buildOpenApi components', () => {
  const registry = z.registry<{ id?: string }>();
  const Money = z.strictObject({ amount: z.number().int(), currency: z.string() });
  registry.add(Money, { id: 'Money' });
  const Price = z.strictObject({ price: Money, note: z.string().optional() });
  registry.add(Price, { id: 'Price' });
  const WithDefault = z.strictObject({ size: z.number().default(1) });
  registry.add(WithDefault, { id: 'WithDefault' });

  const route = (operationId: string, body: z.ZodType, response: z.ZodType): AnyRoute => ({
    method: 'post',
    path: `/v1/${operationId}`,
    auth: 'none',
    operationId,
    summary: operationId,
    body,
    response,
    handler: () => ({}),
  });
  const doc = buildOpenApi([route('price', Price, Price), route('sized', WithDefault, WithDefault)], {
    title: 't',
    version: '1',
    registry,
    securitySchemes: {},
    security: {},
  }) as { components: { schemas: Record<string, unknown> } };

  it('shares a schema whose request and response shapes are the same, refs included', () => {
    expect(Object.keys(doc.components.schemas)).toContain('Price');
    expect(Object.keys(doc.components.schemas)).not.toContain('PriceInput');
    expect(Object.keys(doc.components.schemas)).not.toContain('MoneyInput');
  });

  it('keeps a separate input component when a default makes the shapes differ', () => {
    expect(Object.keys(doc.components.schemas)).toContain('WithDefaultInput');
  });
});

describe('lazyOpenApi', () => {
  const tagged = (tag: string): AnyRoute => ({
    method: 'get',
    path: '/v1/thing',
    auth: 'none',
    operationId: 'getThing',
    summary: 'A thing.',
    tags: [tag],
    response: z.object({}),
    handler: () => ({}),
  });
  const info = (registry = z.registry<{ id?: string }>()) => ({
    title: 't',
    version: '1',
    registry,
    securitySchemes: {},
    security: {},
    tags: [{ name: 'Things', description: 'Things.' }],
  });

  it('builds nothing until the document is first asked for', () => {
    // A route with an undeclared tag makes buildOpenApi throw: the throw proves when it runs.
    const doc = lazyOpenApi([tagged('Undeclared')], info());
    expect(() => doc()).toThrow(/undeclared tag 'Undeclared'/);
  });

  it('builds once and hands every later caller the same document', () => {
    const doc = lazyOpenApi([tagged('Things')], info());
    const first = doc();
    expect(doc()).toBe(first);
    expect(first).toEqual(buildOpenApi([tagged('Things')], info()));
  });
});

/** The document is built on the first request: two first requests at once must both get it whole. */
describe.each(['content', 'commerce'] as const)('%s /v1/openapi.json on a fresh server', (name) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(name);
  });
  afterAll(() => svc.close());

  it('answers concurrent first requests with the same complete document', async () => {
    const [a, b] = await Promise.all([
      api(svc.url, 'GET', '/v1/openapi.json'),
      api(svc.url, 'GET', '/v1/openapi.json'),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.openapi).toBe('3.1.0');
    expect(Object.keys(a.body.paths).length).toBeGreaterThan(5);
    expect(b.body).toEqual(a.body);
    expect(a.body).toEqual(svc.handle.openapi);
  });
});
