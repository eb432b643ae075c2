import { verifyEvent } from '@svc/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, as, BUYER, type Commerce, PROTOCOL, startCommerce, startReceiver } from './helpers.js';

/** The "done when": a sandbox app goes the whole way over HTTP with only its API key. */
describe('commerce: the whole way in the sandbox', () => {
  let c: Commerce;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    c = await startCommerce({ webhookAllowPrivate: true });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await c.close();
    await receiver.close();
  });

  it('lists merchants, gets a user, an offer, a checkout with an action, confirms, gets events, reads the order', async () => {
    const app = as(c.svc, c.sandboxKey);
    const endpoint = await app('POST', '/v1/webhook_endpoints', { url: receiver.url });
    expect(endpoint.status).toBe(201);
    expect(endpoint.body.secret).toMatch(/^whsec_/);

    const merchants = await app('GET', '/v1/merchants');
    expect(merchants.status).toBe(200);
    expect(merchants.body.merchants.some((m: any) => m.id === 'sandbox-protocol' && m.sandbox)).toBe(true);

    const pt = await app('POST', '/v1/sandbox/public_token', { client_user_id: 'user-42' });
    const ex = await app('POST', '/v1/approval_tokens/exchange', { public_token: pt.body.public_token });
    expect(ex.status).toBe(200);
    expect(ex.body.user_token).toMatch(/^user-/);
    expect(ex.body.user_id).toMatch(/^usr_/);
    const user = as(c.svc, c.sandboxKey, ex.body.user_token);

    const offer = await app('POST', '/v1/offers', { url: `${PROTOCOL}/requires-action-tea-kettle` });
    expect(offer.status).toBe(201);
    expect(offer.body.id).toMatch(/^ofr_/);

    const created = await user('POST', '/v1/checkouts', {
      offer_id: offer.body.id,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('requires_user_action');
    expect(created.body.next_action.type).toBe('one_time_code');
    expect(created.body.next_action.fields[0].name).toBe('code');

    const input = await user('POST', `/v1/checkouts/${created.body.id}/user_input`, {
      fields: { code: '424242' },
    });
    expect(input.status).toBe(200);
    expect(input.body.status).toBe('ready_to_confirm');

    const confirmed = await user('POST', `/v1/checkouts/${created.body.id}/confirm`, undefined, {
      'idempotency-key': 'confirm-1',
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('completed');
    expect(confirmed.body.order_id).toMatch(/^ord_/);

    await c.handle.dispatcher.runDue();
    const types = receiver.received.map((r) => r.event.type);
    expect(types).toContain('checkout.requires_user_action');
    expect(types).toContain('checkout.completed');
    expect(types).toContain('order.updated');
    for (const r of receiver.received) {
      const event = verifyEvent(r.body, r.headers['service-signature'] as string, endpoint.body.secret, {
        now: () => c.svc.clock.now(),
      });
      expect(event.id).toMatch(/^evt_/);
    }

    const order = await user('GET', `/v1/orders/${confirmed.body.order_id}`);
    expect(order.status).toBe(200);
    expect(order.body.status).toBe('placed');
    expect(order.body.totals.total).toEqual(confirmed.body.totals.total);
  });
});
