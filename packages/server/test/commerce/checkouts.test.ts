import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ADDRESS,
  as,
  BUYER,
  type Call,
  CORNER,
  type Commerce,
  deliveredEvents,
  MAJOR,
  MEMBERS,
  PROTOCOL,
  sandboxUser,
  startCommerce,
  startReceiver,
} from './helpers.js';

describe('checkouts: every state move and its events', () => {
  let c: Commerce;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let user: Call;

  /** Event types delivered since the last call, for one object id. */
  const events = (id: string) => deliveredEvents(c, receiver, id);

  beforeAll(async () => {
    c = await startCommerce({ webhookAllowPrivate: true });
    receiver = await startReceiver();
    await as(c.svc, c.sandboxKey)('POST', '/v1/webhook_endpoints', { url: receiver.url });
    user = (await sandboxUser(c.svc, c.sandboxKey)).call;
  });
  beforeEach(() => {
    receiver.received.splice(0);
  });
  afterAll(async () => {
    await c.close();
    await receiver.close();
  });

  it('ucp: building -> (update) ready_to_confirm -> confirm -> completed', async () => {
    const created = await user('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/desk-lamp`,
      quantity: 2,
    });
    expect(created.status).toBe(201);
    const chk = created.body;
    expect(chk).toMatchObject({
      status: 'building',
      route: 'ucp',
      merchant_id: 'sandbox-protocol',
      next_action: null,
    });
    expect(chk.id).toMatch(/^chk_/);
    expect(chk.line_items[0].quantity).toBe(2);
    expect(chk.totals.shipping).toBeNull();
    expect(await events(chk.id)).toEqual(['checkout.updated']);

    const updated = await user('POST', `/v1/checkouts/${chk.id}/update`, {
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(updated.status).toBe(200);
    expect(updated.body.status).toBe('ready_to_confirm');
    expect(updated.body.totals.shipping.currency).toBe('USD');
    const t = updated.body.totals;
    expect(t.total.amount).toBe(t.subtotal.amount + t.shipping.amount + t.tax.amount);
    expect(await events(chk.id)).toEqual(['checkout.updated']);

    const done = await user('POST', `/v1/checkouts/${chk.id}/confirm`);
    expect(done.body).toMatchObject({ status: 'completed', next_action: null, error: null });
    const ev = await events(chk.id);
    expect(ev).toEqual(['checkout.updated', 'checkout.updated', 'checkout.completed']);
    const orderEvents = await (async () => {
      const o = await user('GET', `/v1/orders/${done.body.order_id}`);
      return o.body;
    })();
    expect(orderEvents.checkout_id).toBe(chk.id);
  });

  it('device_session: task -> complete_action -> confirm waits in confirming -> merchant_complete', async () => {
    const chk = (
      await user('POST', '/v1/checkouts', {
        product_url: `${MAJOR}/television`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      })
    ).body;
    expect(chk.status).toBe('requires_user_action');
    expect(chk.next_action.type).toBe('device_session');
    expect(chk.next_action.task_id).toMatch(/^task_/);
    expect(await events(chk.id)).toEqual(['checkout.updated', 'checkout.requires_user_action']);

    const ready = await user('POST', `/v1/sandbox/checkouts/${chk.id}/complete_action`);
    expect(ready.body.status).toBe('ready_to_confirm');
    const confirming = await user('POST', `/v1/checkouts/${chk.id}/confirm`);
    expect(confirming.body.status).toBe('confirming');
    expect(confirming.body.order_id).toBeNull();
    // Confirming is not open: no cancel.
    const cancel = await user('POST', `/v1/checkouts/${chk.id}/cancel`);
    expect(cancel.status).toBe(409);
    const done = await user('POST', `/v1/sandbox/checkouts/${chk.id}/merchant_complete`);
    expect(done.body.status).toBe('completed');
    expect(await events(chk.id)).toEqual([
      'checkout.updated',
      'checkout.updated',
      'checkout.updated',
      'checkout.completed',
    ]);
  });

  it('major retailers cannot be re-priced: UPDATE_NOT_SUPPORTED', async () => {
    const chk = (await user('POST', '/v1/checkouts', { product_url: `${MAJOR}/toaster` })).body;
    const res = await user('POST', `/v1/checkouts/${chk.id}/update`, { buyer: BUYER });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('UPDATE_NOT_SUPPORTED');
  });

  it('browser: a url to open, then the same path as a device', async () => {
    const chk = (
      await user('POST', '/v1/checkouts', {
        product_url: `${CORNER}/candle`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      })
    ).body;
    expect(chk).toMatchObject({ status: 'requires_user_action', route: 'browser' });
    expect(chk.next_action.type).toBe('browser');
    expect(chk.next_action.url).toMatch(/^https:\/\/corner-store\.sandbox\.test\//);
    await user('POST', `/v1/sandbox/checkouts/${chk.id}/complete_action`);
    expect((await user('POST', `/v1/checkouts/${chk.id}/confirm`)).body.status).toBe('confirming');
    expect((await user('POST', `/v1/sandbox/checkouts/${chk.id}/merchant_complete`)).body.status).toBe(
      'completed',
    );
  });

  it('a missing connection: connection_id, connection.needs_user, then connecting resumes the checkout', async () => {
    const { call, userId } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'needs-connection' });
    const chk = (
      await call('POST', '/v1/checkouts', {
        product_url: `${MEMBERS}/bulk-rice`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      })
    ).body;
    expect(chk.next_action.type).toBe('connect_store');
    expect(chk.next_action.connection_id).toMatch(/^con_/);
    await c.handle.dispatcher.runDue();
    const conEvent = receiver.received.find((r) => r.event.type === 'connection.needs_user');
    expect(conEvent?.event.data).toMatchObject({
      id: chk.next_action.connection_id,
      user_id: userId,
      status: 'needs_user',
    });
    receiver.received.splice(0);

    const connections = await call('GET', '/v1/connections');
    expect(connections.body.connections).toHaveLength(1);
    const con = await call('POST', '/v1/sandbox/connections', { merchant_id: 'sandbox-members' });
    expect(con.body).toMatchObject({ id: chk.next_action.connection_id, status: 'active' });
    expect((await call('GET', `/v1/checkouts/${chk.id}`)).body.status).toBe('ready_to_confirm');
    expect(await events(chk.id)).toEqual(['checkout.updated']);

    const revoked = await call('POST', '/v1/sandbox/connections', {
      merchant_id: 'sandbox-members',
      status: 'revoked',
    });
    expect(revoked.body.status).toBe('revoked');
    await c.handle.dispatcher.runDue();
    expect(receiver.received.map((r) => r.event.type)).toContain('connection.revoked');

    const unknown = await call('POST', '/v1/sandbox/connections', { merchant_id: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.param).toBe('merchant_id');
  });

  it('one-time code: only the asked fields, a wrong code is USER_INPUT_REJECTED', async () => {
    const chk = (
      await user('POST', '/v1/checkouts', {
        product_url: `${PROTOCOL}/requires-action-chair`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      })
    ).body;
    expect(chk.next_action).toMatchObject({ type: 'one_time_code', fields: [{ name: 'code' }] });
    const extra = await user('POST', `/v1/checkouts/${chk.id}/user_input`, {
      fields: { code: '424242', pin: '1' },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.error.param).toBe('fields.pin');
    const missing = await user('POST', `/v1/checkouts/${chk.id}/user_input`, { fields: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.param).toBe('fields.code');
    const wrong = await user('POST', `/v1/checkouts/${chk.id}/user_input`, { fields: { code: '000000' } });
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.code).toBe('USER_INPUT_REJECTED');
    const ok = await user('POST', `/v1/checkouts/${chk.id}/user_input`, { fields: { code: '424242' } });
    expect(ok.body.status).toBe('ready_to_confirm');
    const again = await user('POST', `/v1/checkouts/${chk.id}/user_input`, { fields: { code: '424242' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CHECKOUT_STATE_INVALID');
  });

  it('decline: confirm fails the checkout with an error and checkout.failed', async () => {
    const chk = (
      await user('POST', '/v1/checkouts', {
        product_url: `${PROTOCOL}/decline-bike`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      })
    ).body;
    expect(await events(chk.id)).toEqual(['checkout.updated']);
    const res = await user('POST', `/v1/checkouts/${chk.id}/confirm`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.code).toBe('MERCHANT_DECLINED');
    expect(res.body.order_id).toBeNull();
    expect(await events(chk.id)).toEqual(['checkout.updated', 'checkout.updated', 'checkout.failed']);
    expect((await user('GET', '/v1/orders')).body.orders.some((o: any) => o.checkout_id === chk.id)).toBe(
      false,
    );
  });

  it('out-of-stock: the checkout fails at once with OUT_OF_STOCK', async () => {
    const res = await user('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/out-of-stock-sofa` });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'failed', error: { code: 'OUT_OF_STOCK' } });
    expect(await events(res.body.id)).toEqual(['checkout.updated', 'checkout.failed']);
  });

  it('price-change: update re-prices the checkout', async () => {
    const chk = (
      await user('POST', '/v1/checkouts', {
        product_url: `${PROTOCOL}/price-change-price-1000-rug`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      })
    ).body;
    expect(chk.line_items[0].unit_price.amount).toBe(1000);
    const first = await user('POST', `/v1/checkouts/${chk.id}/update`, {});
    expect(first.body.line_items[0].unit_price.amount).toBe(1100);
    const second = await user('POST', `/v1/checkouts/${chk.id}/update`, {
      shipping_address: { ...ADDRESS, country: 'ca' },
    });
    expect(second.body.line_items[0].unit_price.amount).toBe(1200);
    expect(second.body.shipping_address.country).toBe('CA');
    expect(second.body.merchant_messages.some((m: string) => m.includes('Price changed'))).toBe(true);
  });

  it('confirm only in ready_to_confirm, naming the current state; cancel only when open', async () => {
    const chk = (await user('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/kettle` })).body;
    const early = await user('POST', `/v1/checkouts/${chk.id}/confirm`);
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('CHECKOUT_STATE_INVALID');
    expect(early.body.error.message).toContain('building');
    const canceled = await user('POST', `/v1/checkouts/${chk.id}/cancel`);
    expect(canceled.body.status).toBe('canceled');
    expect(await events(chk.id)).toEqual(['checkout.updated', 'checkout.updated']);
    const twice = await user('POST', `/v1/checkouts/${chk.id}/cancel`);
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toContain('canceled');
    expect((await user('POST', `/v1/checkouts/${chk.id}/update`, {})).status).toBe(409);
    expect((await user('POST', `/v1/sandbox/checkouts/${chk.id}/merchant_complete`)).status).toBe(409);
    expect((await user('POST', `/v1/sandbox/checkouts/${chk.id}/complete_action`)).status).toBe(409);
    expect((await user('POST', `/v1/sandbox/checkouts/${chk.id}/user_confirm`)).status).toBe(409);
  });

  it('validates quantity, country, item_ref, the offer/product pair and unknown fields', async () => {
    const base = { product_url: `${PROTOCOL}/mug` };
    const cases: [unknown, string][] = [
      [{ ...base, quantity: 0 }, 'quantity'],
      [{ ...base, quantity: 21 }, 'quantity'],
      [{ ...base, quantity: 1.5 }, 'quantity'],
      [{ ...base, shipping_address: { ...ADDRESS, country: 'USA' } }, 'shipping_address.country'],
      [{ ...base, shipping_address: { ...ADDRESS, planet: 'Earth' } }, 'shipping_address.planet'],
      [{ ...base, buyer: { email: 'not-an-email' } }, 'buyer.email'],
      [{ ...base, coupon: 'FREE' }, 'coupon'],
      [{ ...base, item_ref: 'sku_nope' }, 'item_ref'],
      [{}, 'offer_id'],
      [{ product_url: 'ftp://protocol-shop.sandbox.test/x' }, 'product_url'],
    ];
    for (const [body, param] of cases) {
      const res = await user('POST', '/v1/checkouts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.param).toBe(param);
    }
    const offer = await as(c.svc, c.sandboxKey)('POST', '/v1/offers', { url: `${PROTOCOL}/mug` });
    const mismatch = await user('POST', '/v1/checkouts', {
      offer_id: offer.body.id,
      product_url: `${PROTOCOL}/cup`,
    });
    expect(mismatch.body.error.param).toBe('product_url');
    const ok = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 20 });
    expect(ok.status).toBe(201);
    expect(ok.body.offer_id).toBe(offer.body.id);
    const noBody = await user('POST', `/v1/checkouts/${ok.body.id}/cancel`, { reason: 'x' });
    expect(noBody.status).toBe(400);
  });

  it('a store that is down refuses new checkouts with 503 MERCHANT_UNAVAILABLE', async () => {
    const res = await user('POST', '/v1/checkouts', {
      product_url: 'https://outage.sandbox.test/products/x',
    });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('MERCHANT_UNAVAILABLE');
  });
});
