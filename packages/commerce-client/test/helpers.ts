import { ClientCore, type CoreConfig } from '@svc/client-core';
import type { Checkout } from '@svc/webhooks';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { CommerceClient } from '../src/index.js';

export const BASE = 'https://commerce.test/v1';
export const KEY = 'svc_test_unitkey';
export const USER = 'user-unit-token';

export const server = setupServer();

/** Every request that reached the network, in order (cloned, so bodies stay readable). */
export const seen: Request[] = [];

export function useServer(): void {
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' });
    server.events.on('request:start', ({ request }) => {
      seen.push(request.clone());
    });
  });
  afterEach(() => {
    server.resetHandlers();
    seen.length = 0;
  });
  afterAll(() => server.close());
}

/**
 * A client whose back-off and polling sleeps are recorded, not waited, with jitter off. The
 * CommerceClient takes a ClientCore for exactly this: tests inject the core's hooks.
 */
export function makeClient(config: Partial<CoreConfig> = {}) {
  const delays: number[] = [];
  const core = new ClientCore({
    baseUrl: BASE,
    apiKey: KEY,
    serviceClient: '@svc/commerce-client/test',
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0,
    ...config,
  });
  const client = new CommerceClient(core);
  return { client, user: client.forUser(USER), delays };
}

export function errorBody(code: string, message: string, requestId = 'req_body') {
  return { error: { code, message, request_id: requestId } };
}

const money = (amount: number) => ({ amount, currency: 'USD' });

/** A whole Checkout as the server sends it; override what the test is about. */
export function checkout(overrides: Partial<Checkout> = {}): Checkout {
  return {
    id: 'chk_1',
    user_id: 'usr_1',
    merchant_id: 'sandbox-protocol',
    offer_id: 'ofr_1',
    product_url: 'https://protocol-shop.sandbox.test/products/kettle',
    route: 'ucp',
    status: 'building',
    line_items: [{ item_ref: 'sku_1', title: 'Kettle', quantity: 1, unit_price: money(2500) }],
    totals: { subtotal: money(2500), shipping: null, tax: null, total: money(2500) },
    buyer: null,
    shipping_address: null,
    next_action: null,
    requires_user_confirmation: false,
    user_confirmed_at: null,
    order_id: null,
    error: null,
    merchant_messages: [],
    created_at: '2026-01-05T09:00:00.000Z',
    updated_at: '2026-01-05T09:00:00.000Z',
    ...overrides,
  };
}

/** Answers `GET /checkouts/chk_1` with each status in turn, then keeps answering the last. */
export function checkoutSequence(statuses: Checkout['status'][]): { reads: () => number } {
  let n = 0;
  server.use(
    http.get(`${BASE}/checkouts/chk_1`, () => {
      const status = statuses[Math.min(n, statuses.length - 1)] as Checkout['status'];
      n++;
      return HttpResponse.json(checkout({ status }), { headers: { 'service-request-id': `req_${n}` } });
    }),
  );
  return { reads: () => n };
}
