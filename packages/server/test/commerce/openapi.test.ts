import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from '../helpers/start.js';
import { type Commerce, startCommerce } from './helpers.js';

describe('commerce OpenAPI document', () => {
  let c: Commerce;
  let doc: any;
  beforeAll(async () => {
    c = await startCommerce();
    doc = (await api(c.svc.url, 'GET', '/v1/openapi.json')).body;
  });
  afterAll(() => c.close());

  it('lists every endpoint of the spec, and no dashboard route', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, methods]: [string, any]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(ops.sort()).toEqual(
      [
        'GET /.well-known/ucp',
        'GET /v1/health',
        'GET /v1/merchants',
        'GET /v1/merchants/{id}',
        'POST /v1/approval_tokens',
        'POST /v1/approval_tokens/exchange',
        'POST /v1/offers',
        'GET /v1/offers/{id}',
        'POST /v1/checkouts',
        'GET /v1/checkouts/{id}',
        'POST /v1/checkouts/{id}/update',
        'POST /v1/checkouts/{id}/confirm',
        'POST /v1/checkouts/{id}/user_input',
        'POST /v1/checkouts/{id}/cancel',
        'GET /v1/orders',
        'GET /v1/orders/{id}',
        'GET /v1/connections',
        'POST /v1/webhook_endpoints',
        'POST /v1/sandbox/public_token',
        'POST /v1/sandbox/connections',
        'POST /v1/sandbox/checkouts/{id}/user_confirm',
        'POST /v1/sandbox/checkouts/{id}/complete_action',
        'POST /v1/sandbox/checkouts/{id}/merchant_complete',
        'POST /v1/sandbox/orders/{id}/advance',
      ].sort(),
    );
    expect(doc.paths['/v1/checkouts'].post.security).toEqual([{ apiKey: [], userToken: [] }]);
  });

  it('names the resource schemas as components', () => {
    for (const name of [
      'Merchant',
      'Offer',
      'Checkout',
      'Order',
      'Connection',
      'Money',
      'ShippingAddress',
      'Buyer',
      'NextAction',
      'LineItem',
      'Totals',
      'ApprovalRules',
      'WebhookEndpoint',
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    expect(doc.components.schemas.Checkout.properties.status.enum).toContain('requires_user_action');
    expect(doc.components.schemas.Order.properties.status.enum).toEqual([
      'placed',
      'shipped',
      'delivered',
      'canceled',
      'returned',
    ]);
  });

  it('documents every event type under webhooks', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(
      [
        'checkout.completed',
        'checkout.failed',
        'checkout.requires_user_action',
        'checkout.updated',
        'connection.needs_user',
        'connection.revoked',
        'order.updated',
        'webhook.test',
      ].sort(),
    );
    const ref = doc.webhooks['checkout.completed'].post.requestBody.content['application/json'].schema.$ref;
    expect(ref).toBe('#/components/schemas/CheckoutCompletedEvent');
  });
});
