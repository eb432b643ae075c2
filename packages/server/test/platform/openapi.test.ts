import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApi } from '../../src/platform/http/openapi.js';
import type { AnyRoute } from '../../src/platform/http/route.js';

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
