import { hostname } from 'node:os';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import { PLACEMENT_LEASE_MS, placementLease } from '../../src/commerce/services/checkouts.js';
import type { Config } from '../../src/config.js';
import { leasesStore } from '../../src/platform/db/leases-store.js';
import { isGoneHere } from '../../src/platform/instance.js';
import type { UcpStore } from '../fakes/ucp-store.js';
import { runOutLease } from '../helpers/leases.js';
import { startTestService, type TestService } from '../helpers/start.js';
import {
  ADDRESS,
  as,
  BUYER,
  type Call,
  type Commerce,
  deliveredEvents,
  makeKey,
  startReceiver,
} from './helpers.js';
import {
  liveServiceAndUser,
  liveUser,
  offerAndCheckout,
  startLiveCommerce,
  ucpStores,
} from './ucp-helpers.js';

const isMutation = (r: UcpStore['requests'][number]) =>
  r.path.startsWith('/ucp/v1/checkout-sessions') && r.method !== 'GET';

describe('UCP stores: checkouts on checkout-sessions', () => {
  let c: Commerce;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let user: Call;
  const store = ucpStores();

  /** Event types delivered since the last call, for one checkout. */
  const events = (id: string) => deliveredEvents(c, receiver, id);

  beforeAll(async () => {
    c = await startLiveCommerce({ webhookAllowPrivate: true });
    receiver = await startReceiver();
    await as(c.svc, c.liveKey)('POST', '/v1/webhook_endpoints', { url: receiver.url });
    user = (await liveUser(c, { max_per_order: 100_000, max_per_day: 500_000, confirm_above: 2600 })).call;
  });
  beforeEach(() => {
    receiver.received.splice(0);
  });
  afterAll(async () => {
    await receiver.close();
    await c.close();
  });

  const readyCheckout = (s: UcpStore, handle = 'mug') => offerAndCheckout(user, s, handle);

  it('create → update → confirm: the store completes, the order is ours, with the store totals and the headers UCP asks for', async () => {
    const s = await store();
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('mug') });
    const created = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 2 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      status: 'building',
      route: 'ucp',
      line_items: [
        {
          item_ref: 'var_mug_blue',
          title: 'Ceramic Mug, blue',
          quantity: 2,
          unit_price: { amount: 1800, currency: 'USD' },
        },
      ],
      totals: {
        subtotal: { amount: 3600 },
        shipping: null,
        tax: null,
        total: { amount: 3600, currency: 'USD' },
      },
    });
    expect(s.sessions.size).toBe(1);

    const updated = await user('POST', `/v1/checkouts/${created.body.id}/update`, {
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    // The store's figures: standard shipping (its first option) and 8% tax.
    expect(updated.body.totals).toEqual({
      subtotal: { amount: 3600, currency: 'USD' },
      shipping: { amount: 500, currency: 'USD' },
      tax: { amount: 288, currency: 'USD' },
      total: { amount: 4388, currency: 'USD' },
    });
    // Above confirm_above (2600): the user confirms the store's total first.
    expect(updated.body.status).toBe('requires_user_action');
    expect(updated.body.next_action.type).toBe('user_confirmation');
    expect((await user('POST', `/v1/checkouts/${created.body.id}/confirm`)).status).toBe(409);
    const session = [...s.sessions.values()][0];
    expect(session).toMatchObject({ status: 'ready_for_complete', selectedOption: 'standard' });
    expect(session?.destination).toMatchObject({
      street_address: '1 Main St',
      address_country: 'US',
      first_name: 'Ada',
      last_name: 'Lovelace',
    });
    expect(session?.buyer).toMatchObject({ email: BUYER.email, phone_number: '+15550100' });

    const page = await fetch(updated.body.next_action.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('$43.88');
  });

  it('confirms a checkout under confirm_above: complete at the store, one order, events, and every header', async () => {
    const s = await store();
    const ready = await readyCheckout(s);
    expect(ready.status).toBe('ready_to_confirm');
    expect(ready.totals.total).toEqual({ amount: 2444, currency: 'USD' });
    const confirmed = await user('POST', `/v1/checkouts/${ready.id}/confirm`, undefined, {
      'idempotency-key': 'confirm-1',
    });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'completed', next_action: null });
    const order = await user('GET', `/v1/orders/${confirmed.body.order_id}`);
    expect(order.body).toMatchObject({
      merchant_order_ref: 'ord_1',
      totals: { total: { amount: 2444 } },
      status: 'placed',
    });
    expect(s.orders).toHaveLength(1);
    expect(await events(ready.id)).toEqual(
      expect.arrayContaining(['checkout.updated', 'checkout.completed']),
    );

    const ops = s.requests.filter((r) => r.path.startsWith('/ucp/v1'));
    for (const r of ops) {
      expect(r.headers['ucp-agent']).toMatch(
        /^profile="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/ucp", version="2026-04-08"$/,
      );
      expect(r.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
      if (isMutation(r)) expect(r.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(new Set(ops.map((r) => r.headers['request-id'])).size).toBe(ops.length);
    expect(ops.map((r) => `${r.method} ${r.path.replace(/cs_\d+/, ':id')}`)).toEqual([
      'POST /ucp/v1/catalog/lookup',
      'POST /ucp/v1/checkout-sessions',
      'PUT /ucp/v1/checkout-sessions/:id',
      'POST /ucp/v1/checkout-sessions/:id/complete',
    ]);
    // The complete sent the instrument the store offered.
    expect(ops.at(-1)?.body).toEqual({
      payment: {
        instruments: [
          { id: 'inst_account', handler_id: 'store_account', type: 'store_account', selected: true },
        ],
      },
    });
  });

  it('cancels the session at the store', async () => {
    const s = await store();
    const ready = await readyCheckout(s);
    const canceled = await user('POST', `/v1/checkouts/${ready.id}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect([...s.sessions.values()][0]?.status).toBe('canceled');
  });

  it('escalation: the buyer pays on the store page (continue_url), then the store reports the order', async () => {
    const s = await store({ escalateOnComplete: true });
    const ready = await readyCheckout(s);
    await events(ready.id);
    const confirmed = await user('POST', `/v1/checkouts/${ready.id}/confirm`);
    expect(confirmed.status).toBe(200);
    const session = [...s.sessions.values()][0] as { id: string };
    expect(confirmed.body).toMatchObject({
      status: 'requires_user_action',
      next_action: { type: 'browser', url: `${s.origin}/checkout/${session.id}` },
    });
    expect(confirmed.body.merchant_messages.join('\n')).toContain('The buyer pays on the store page.');
    // confirming, then handed to the buyer
    expect(await events(ready.id)).toEqual([
      'checkout.updated',
      'checkout.updated',
      'checkout.requires_user_action',
    ]);
    // Still waiting: asking again changes nothing and sends no event.
    expect((await user('GET', `/v1/checkouts/${ready.id}`)).body.status).toBe('requires_user_action');
    expect(await events(ready.id)).toEqual([]);

    s.payAtStore(session.id);
    const done = await user('GET', `/v1/checkouts/${ready.id}`);
    expect(done.body).toMatchObject({ status: 'completed', next_action: null });
    expect((await user('GET', `/v1/orders/${done.body.order_id}`)).body.merchant_order_ref).toBe('ord_1');
    expect(await events(ready.id)).toEqual(expect.arrayContaining(['checkout.completed']));
  });

  it('a store that needs buyer input (incomplete, requires_buyer_input) hands off before any confirm', async () => {
    const s = await store({ buyerInput: true });
    const created = await readyCheckout(s);
    expect(created.status).toBe('requires_user_action');
    expect(created.next_action).toMatchObject({
      type: 'browser',
      url: expect.stringContaining(`${s.origin}/checkout/`),
    });
    expect(created.merchant_messages.join('\n')).toContain('[age_verification]');
  });

  it('a store without a payment instrument for us hands the payment to the buyer', async () => {
    const s = await store({ noInstrument: true });
    const created = await readyCheckout(s);
    expect(created.status).toBe('requires_user_action');
    expect(created.next_action.description).toMatch(/buyer pays there/);
  });

  it('a price change at the store: totals follow it, and confirm_above is judged on the store total', async () => {
    const s = await store();
    const ready = await readyCheckout(s);
    expect(ready.status).toBe('ready_to_confirm');
    s.script.priceChangeOnUpdate = true;
    const moved = await user('POST', `/v1/checkouts/${ready.id}/update`, { buyer: BUYER });
    expect(moved.body.line_items[0].unit_price.amount).toBe(1980);
    expect(moved.body.totals.total.amount).toBe(1980 + 500 + 158);
    expect(moved.body.merchant_messages.join('\n')).toContain(
      '[price_changed] Price changed from 1800 to 1980.',
    );
    expect(moved.body.status).toBe('requires_user_action');
    expect(moved.body.next_action.type).toBe('user_confirmation');
  });

  it('a decline: the checkout fails with the store reason, and no order', async () => {
    const s = await store({ declineComplete: true });
    const ready = await readyCheckout(s);
    const res = await user('POST', `/v1/checkouts/${ready.id}/confirm`);
    expect(res.body.status).toBe('failed');
    expect(res.body.error.code).toBe('PAYMENT_DECLINED');
    expect(res.body.error.message).toContain('The card on the account was declined.');
    expect(s.orders).toEqual([]);
    expect(await events(ready.id)).toEqual(expect.arrayContaining(['checkout.failed']));
  });

  it('out of stock: from the offer (no session opened), and when stock runs out before the checkout', async () => {
    const s = await store();
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('mug', 'variant=var_mug_red') });
    const soldOut = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 1 });
    expect(soldOut.body).toMatchObject({ status: 'failed', error: { code: 'OUT_OF_STOCK' } });
    expect(s.sessions.size).toBe(0);

    const blue = await user('POST', '/v1/offers', { url: s.productUrl('mug') });
    (s.products[0]?.variants[0] as { status: string }).status = 'out_of_stock';
    const gone = await user('POST', '/v1/checkouts', { offer_id: blue.body.id, quantity: 1 });
    expect(gone.status).toBe(422);
    expect(gone.body.error.code).toBe('OUT_OF_STOCK');
    expect(gone.body.error.message).toContain('out of stock');
  });

  it("a retried confirm reads the store's checkout and adopts the order the lost answer placed: one complete, one order", async () => {
    const s = await store({ dropCompleteAnswers: 1 });
    const ready = await readyCheckout(s);
    const first = await user('POST', `/v1/checkouts/${ready.id}/confirm`, undefined, {
      'idempotency-key': 'k-retry',
    });
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe('MERCHANT_UNAVAILABLE');
    expect(first.headers.get('retry-after')).toBe('5');
    expect((await user('GET', `/v1/checkouts/${ready.id}`)).body.status).toBe('confirming');
    const retry = await user('POST', `/v1/checkouts/${ready.id}/confirm`, undefined, {
      'idempotency-key': 'k-retry',
    });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.status).toBe('completed');
    expect(s.requests.filter((r) => r.path.endsWith('/complete'))).toHaveLength(1);
    expect(s.orders).toHaveLength(1);
  });

  it('an update whose answer was lost, then a different update: the store takes the second (its own key)', async () => {
    const s = await store();
    const ready = await readyCheckout(s);
    s.script.dropUpdateAnswers = 1;
    const lost = await user('POST', `/v1/checkouts/${ready.id}/update`, {
      buyer: { email: 'first@example.com' },
    });
    expect(lost.status).toBe(503);
    const next = await user('POST', `/v1/checkouts/${ready.id}/update`, {
      buyer: { email: 'second@example.com' },
    });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.buyer.email).toBe('second@example.com');
    expect([...s.sessions.values()][0]?.buyer).toMatchObject({ email: 'second@example.com' });
  });

  it('a store that is down: 503 MERCHANT_UNAVAILABLE with Retry-After, nothing changes, and it works once back', async () => {
    const s = await store();
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('mug') });
    const created = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 1 });
    s.script.down = true;
    const down = await user('POST', `/v1/checkouts/${created.body.id}/update`, {
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('MERCHANT_UNAVAILABLE');
    expect(down.headers.get('retry-after')).toBe('5');
    expect((await user('GET', `/v1/checkouts/${created.body.id}`)).body.status).toBe('building');
    const cancelDown = await user('POST', `/v1/checkouts/${created.body.id}/cancel`);
    expect(cancelDown.status).toBe(503);
    s.script.down = false;
    const back = await user('POST', `/v1/checkouts/${created.body.id}/update`, {
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(back.status).toBe(200);
    expect(back.body.status).toBe('ready_to_confirm');
  });
});

describe('UCP stores: answers that break the contract', () => {
  const live = liveServiceAndUser();
  const user: Call = (...args) => live.user(...args);
  const store = ucpStores();

  it('a checkout answer with amounts as strings is refused: 503 MERCHANT_UNAVAILABLE, not read as prices', async () => {
    const s = await store({ corruptCheckouts: true });
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('mug') });
    const res = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 1 });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('MERCHANT_UNAVAILABLE');
    expect(res.body.error.message).toContain('readable checkout session');
  });
});

describe('UCP stores: a confirm interrupted by a restart', () => {
  const store = ucpStores();

  it("start-up recovery reads the store's checkout first: the order the lost answer placed is adopted, the complete is not sent again", async () => {
    let svc = await startTestService('commerce', { config: { storesAllowPrivate: true } as Partial<Config> });
    try {
      const liveKey = await makeKey(svc, 'live');
      const { userToken } = await liveUser({ svc, liveKey });
      // Follows the service across the restart (it listens on a new port).
      const call: Call = (...args) => as(svc, liveKey, userToken)(...args);
      const s = await store({ dropCompleteAnswers: 1 });
      const offer = await call('POST', '/v1/offers', { url: s.productUrl('mug') });
      const ready = await call('POST', '/v1/checkouts', {
        offer_id: offer.body.id,
        quantity: 1,
        buyer: BUYER,
        shipping_address: ADDRESS,
      });
      expect(ready.body.status).toBe('ready_to_confirm');
      const lost = await call('POST', `/v1/checkouts/${ready.body.id}/confirm`, undefined, {
        'idempotency-key': 'k',
      });
      expect(lost.status).toBe(503);

      svc = await svc.restart();
      svc.handle.startBackground();
      let c = (await call('GET', `/v1/checkouts/${ready.body.id}`)).body;
      for (let i = 0; c.status === 'confirming' && i < 400; i++) {
        await new Promise((r) => setTimeout(r, 5));
        c = (await call('GET', `/v1/checkouts/${ready.body.id}`)).body;
      }
      expect(c.status).toBe('completed');
      expect(s.requests.filter((r) => r.path.endsWith('/complete'))).toHaveLength(1);
      expect(s.orders).toHaveLength(1);
      expect((await call('GET', `/v1/orders/${c.order_id}`)).body.merchant_order_ref).toBe(s.orders[0]?.id);
    } finally {
      await svc.close();
    }
  });

  /** A live service of the test's own and one approved user; the service is closed after `run`. */
  const ownService = async (run: (svc: TestService, call: Call) => Promise<void>) => {
    const svc = await startTestService('commerce', {
      config: { storesAllowPrivate: true } as Partial<Config>,
    });
    try {
      const liveKey = await makeKey(svc, 'live');
      await run(svc, (await liveUser({ svc, liveKey })).call);
    } finally {
      await svc.close();
    }
  };

  it('start-up recovery sends a complete the store never got again, with the same Idempotency-Key: one order', () =>
    ownService(async (svc, call) => {
      const s = await store();
      const ready = await offerAndCheckout(call, s);
      s.script.down = true;
      expect((await call('POST', `/v1/checkouts/${ready.id}/confirm`)).status).toBe(503);
      s.script.down = false;
      await (svc.handle as CommerceServiceHandle).recover();
      expect((await call('GET', `/v1/checkouts/${ready.id}`)).body.status).toBe('completed');
      const completes = s.requests.filter((r) => r.path.endsWith('/complete'));
      expect(completes.length).toBeGreaterThanOrEqual(1);
      expect(new Set(completes.map((r) => r.headers['idempotency-key'])).size).toBe(1);
      expect(s.orders).toHaveLength(1);
    }));

  /**
   * The lease's holder is in another container: same host name, its own pid namespace, a pid that
   * does not exist here. It may be alive with its complete in flight, so recovery waits the lease
   * out, then reads the store's checkout and adopts the order the holder placed.
   */
  it('a placement held by an instance in another pid namespace is left alone until its lease runs out, then its order is adopted, never placed twice', () =>
    ownService(async (svc, call) => {
      const s = await store({ dropCompleteAnswers: 1 });
      const ready = await offerAndCheckout(call, s);
      expect((await call('POST', `/v1/checkouts/${ready.id}/confirm`)).status).toBe(503);
      expect(s.orders).toHaveLength(1);
      const handle = svc.handle as CommerceServiceHandle;
      const lease = placementLease(ready.id);
      const leases = leasesStore(handle.db);
      const elsewhere = `${hostname()}#1/${2 ** 30}/inst_in_another_container`;
      expect(await leases.take(lease, elsewhere, PLACEMENT_LEASE_MS, handle.db.dialect)).toBe(true);
      // Greater than any pid, so absent here, as the other namespace's pid may be: not "gone".
      expect(isGoneHere(`${hostname()}#1/${2 ** 30}/x`)).toBe(false);
      const completes = () => s.requests.filter((r) => r.path.endsWith('/complete')).length;

      await handle.recover();
      expect((await call('GET', `/v1/checkouts/${ready.id}`)).body.status).toBe('confirming');
      expect(completes()).toBe(1);

      await runOutLease(handle.db, lease);
      await handle.recover();
      const done = (await call('GET', `/v1/checkouts/${ready.id}`)).body;
      expect(done.status).toBe('completed');
      expect(completes()).toBe(1);
      expect(s.orders).toHaveLength(1);
      const order = (await call('GET', `/v1/orders/${done.order_id}`)).body;
      expect(order.merchant_order_ref).toBe(s.orders[0]?.id);
    }));
});

describe('the fake UCP store', () => {
  const store = ucpStores();

  it('refuses a request the UCP contract does not allow, and records it', async () => {
    const s = await store();
    const res = await fetch(`${s.origin}/ucp/v1/checkout-sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // No UCP-Agent, Request-Id or Idempotency-Key; a line item with an id (omitted on create) and no quantity.
      body: JSON.stringify({
        line_items: [{ id: 'li_1', item: { id: 'var_mug_blue' } }],
        status: 'completed',
      }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { ucp: { status: string }; messages: { code: string }[] };
    expect(body.ucp.status).toBe('error');
    const recorded = s.violations.splice(0).join('\n');
    for (const part of [
      'UCP-Agent is required',
      'Request-Id is required',
      'Idempotency-Key is required',
      "must have required property 'quantity'",
      '/line_items/0/id boolean schema is false',
      '/status boolean schema is false',
    ])
      expect(recorded).toContain(part);
    expect(s.sessions.size).toBe(0);
  });
});
