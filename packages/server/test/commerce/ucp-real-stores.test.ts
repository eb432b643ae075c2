import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { STORE_CREDENTIAL, type UcpStore } from '../fakes/ucp-store.js';
import { startTestService } from '../helpers/start.js';
import { storedBytes } from '../helpers/stored-bytes.js';
import { ADDRESS, as, BUYER, type Call, makeKey } from './helpers.js';
import { liveServiceAndUser, liveUser, offerAndCheckout, ucpStores } from './ucp-helpers.js';

/*
 * UCP stores as they are in the wild (issue 21): each behaviour is switched on in the fake store,
 * which keeps checking every request against the contract of the version it speaks.
 */

const completes = (s: UcpStore) => s.requests.filter((r) => r.path.endsWith('/complete'));

describe('UCP stores as they really are', () => {
  const live = liveServiceAndUser();
  const user: Call = (...args) => live.user(...args);
  const store = ucpStores();

  const merchantStatus = async (s: UcpStore) =>
    (await as(live.c.svc, live.c.liveKey)('GET', `/v1/merchants?q=${new URL(s.origin).hostname}`)).body
      .merchants[0]?.status;

  const readyCheckout = (s: UcpStore, handle = 'mug') => offerAndCheckout(user, s, handle);

  it('1. a payment declined with 402 {"detail"} fails the checkout with the store words, and a keyed retry gets the same failure', async () => {
    const s = await store({ declineComplete: true, refusalStyle: 'detail' });
    const ready = await readyCheckout(s);
    expect(ready.status).toBe('ready_to_confirm');
    const key = { 'idempotency-key': 'decline-1' };
    const first = await user('POST', `/v1/checkouts/${ready.id}/confirm`, undefined, key);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      status: 'failed',
      error: {
        code: 'PAYMENT_DECLINED',
        message: expect.stringContaining('Payment Failed: Insufficient Funds'),
      },
    });
    const again = await user('POST', `/v1/checkouts/${ready.id}/confirm`, undefined, key);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // The store's refusal is not an outage, and nothing asks it again.
    expect(await merchantStatus(s)).toBe('healthy');
    expect(completes(s)).toHaveLength(1);
    expect(s.orders).toEqual([]);
  });

  it('2. a 2026-01-11 store answering completed with only a top-level order_id: the order is recorded, and what was missing is said', async () => {
    const s = await store({ shape: '2026-01-11', orderIdOnly: true });
    const ready = await readyCheckout(s);
    expect(ready.status, JSON.stringify(ready.body)).toBe('ready_to_confirm');
    const done = await user('POST', `/v1/checkouts/${ready.id}/confirm`);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.status).toBe('completed');
    const order = await user('GET', `/v1/orders/${done.body.order_id}`);
    expect(order.body.merchant_order_ref).toBe('ord_1');
    expect(done.body.merchant_messages.join('\n')).toContain('no order object');
    expect(s.orders).toHaveLength(1);
  });

  it('2. a store that completes a hand-off with neither order object nor totals: the order is still recorded when it is polled', async () => {
    const s = await store({
      shape: '2026-01-11',
      escalateOnComplete: true,
      orderIdOnly: true,
      completedBare: true,
    });
    const ready = await readyCheckout(s);
    const handed = await user('POST', `/v1/checkouts/${ready.id}/confirm`);
    expect(handed.body.status).toBe('requires_user_action');
    s.payAtStore([...s.sessions.keys()][0] as string);
    const done = await user('GET', `/v1/checkouts/${ready.id}`);
    expect(done.body.status).toBe('completed');
    expect(done.body.totals).toEqual(ready.totals);
    expect((await user('GET', `/v1/orders/${done.body.order_id}`)).body.merchant_order_ref).toBe('ord_1');
  });

  it('3. {"detail"} 400/409 and text/plain 422 are the store answers: mapped, quoted, never 503, never held against its health', async () => {
    const s = await store({ refusalStyle: 'detail' });
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('mug') });
    for (const [status, message] of [
      [400, 'Field required: line_items.0.quantity'],
      [409, 'Cart was modified concurrently'],
      [400, 'Unsupported shipping country'],
    ] as const) {
      s.script.refuseNext = { op: 'create', status, message };
      const res = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 1 });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error.code).toBe('MERCHANT_DECLINED');
      expect(res.body.error.message).toContain(message);
      expect(res.headers.get('retry-after')).toBeNull();
    }
    // Three refusals in a row: still healthy, still taking offers.
    expect(await merchantStatus(s)).toBe('healthy');
    expect((await user('POST', '/v1/offers', { url: s.productUrl('mug') })).status).toBe(201);

    s.script.refusalStyle = 'text';
    s.script.refuseNext = { op: 'create', status: 422, message: 'Quantity exceeds the limit of 5' };
    const text = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 1 });
    expect(text.status).toBe(422);
    expect(text.body.error).toMatchObject({
      code: 'MERCHANT_DECLINED',
      message: expect.stringContaining('Quantity exceeds the limit of 5'),
    });

    s.script.refusalStyle = 'detail';
    (s.products[0]?.variants[0] as { status: string }).status = 'out_of_stock';
    const gone = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 1 });
    expect(gone.status).toBe(422);
    expect(gone.body.error).toMatchObject({
      code: 'OUT_OF_STOCK',
      message: expect.stringContaining('out of stock'),
    });
    expect(await merchantStatus(s)).toBe('healthy');
  });

  it('6. speaks the store its declared version: 2026-01-11 bodies to a 2026-01-11 store, and a clear refusal of a version it does not speak', async () => {
    const old = await store({ shape: '2026-01-11' });
    const ready = await readyCheckout(old);
    const updated = await user('POST', `/v1/checkouts/${ready.id}/update`, {
      buyer: { email: 'b@example.com' },
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const ops = old.requests.filter((r) => r.path.startsWith('/ucp/v1/checkout-sessions'));
    expect(ops.length).toBeGreaterThan(1);
    for (const r of ops) expect(r.headers['ucp-agent']).toContain('version="2026-01-11"');
    expect(ops[0]?.body).toMatchObject({ currency: 'USD', payment: {} });
    // The complete in 2026-01-11's shape: the store's instrument as payment_data.
    const buyer = { buyer: BUYER, shipping_address: ADDRESS };
    expect((await user('POST', `/v1/checkouts/${ready.id}/update`, buyer)).body.status).toBe(
      'ready_to_confirm',
    );
    expect((await user('POST', `/v1/checkouts/${ready.id}/confirm`)).body.status).toBe('completed');
    expect(completes(old)[0]?.body).toEqual({
      payment_data: { id: 'inst_account', handler_id: 'store_account', type: 'store_account' },
    });

    const next = await store({ version: '2027-01-01' });
    const refused = await user('POST', '/v1/offers', { url: next.productUrl('mug') });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('MERCHANT_NOT_SUPPORTED');
    expect(refused.body.error.message).toContain("'2027-01-01'");
    expect(refused.body.error.message).toContain('2026-04-08 and 2026-01-11');
    expect(next.requests.filter((r) => r.path.startsWith('/ucp/v1'))).toEqual([]);
  });

  it('5. a store that stays incomplete with nothing left to send and no continue_url fails the checkout with a code that says so', async () => {
    const s = await store({ stuckIncomplete: true });
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('mug') });
    const created = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 1 });
    // Buyer and address still to come: building is honest.
    expect(created.body.status).toBe('building');
    const updated = await user('POST', `/v1/checkouts/${created.body.id}/update`, {
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject({
      status: 'failed',
      next_action: null,
      error: { code: 'MERCHANT_CHECKOUT_STALLED', message: expect.stringContaining('continue_url') },
    });
  });

  it('5. a ready store whose only payment handlers this server does not support: the hand-off at continue_url, else failed with MERCHANT_CHECKOUT_STALLED', async () => {
    const withPage = await store({ noInstrument: true });
    const handedOff = await readyCheckout(withPage);
    expect(handedOff).toMatchObject({
      status: 'requires_user_action',
      next_action: { type: 'browser', url: expect.stringContaining(`${withPage.origin}/checkout/`) },
    });
    const noPage = await store({ noInstrument: true, noContinueUrl: true });
    const stalled = await readyCheckout(noPage);
    expect(stalled).toMatchObject({
      status: 'failed',
      error: {
        code: 'MERCHANT_CHECKOUT_STALLED',
        message: expect.stringContaining('offers no payment instrument this platform can use'),
      },
    });
  });

  it('3. a 429 is not an outage: 503 with Retry-After, nothing changes, and the store stays healthy', async () => {
    const s = await store();
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('mug') });
    s.script.busy = true;
    for (let i = 0; i < 3; i++) {
      const res = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 1 });
      expect([res.status, res.body.error.code]).toEqual([503, 'MERCHANT_UNAVAILABLE']);
      expect(res.headers.get('retry-after')).toBe('5');
    }
    expect(await merchantStatus(s)).toBe('healthy');
    s.script.busy = false;
    expect((await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 1 })).status).toBe(201);
  });

  it('4. a headless store (no catalog, no product page): product_url on its origin plus item_ref opens the session, and the store prices it', async () => {
    const s = await store({ catalog: false, productPages: false });
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('lamp') });
    expect(offer.status).toBe(422);
    expect(offer.body.error.message).toContain('item_ref');
    const created = await user('POST', '/v1/checkouts', {
      product_url: `${s.origin}/`,
      item_ref: 'var_lamp',
      quantity: 1,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      status: 'ready_to_confirm',
      line_items: [
        { item_ref: 'var_lamp', title: 'Desk Lamp', unit_price: { amount: 12_000, currency: 'USD' } },
      ],
      totals: { total: { amount: 12_000 + 500 + 960, currency: 'USD' } },
    });
    const done = await user('POST', `/v1/checkouts/${created.body.id}/confirm`);
    expect(done.body.status).toBe('completed');
    expect(s.orders).toHaveLength(1);

    const unknown = await user('POST', '/v1/checkouts', {
      product_url: `${s.origin}/`,
      item_ref: 'no_such_item',
      quantity: 1,
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('PRODUCT_NOT_FOUND');
  });

  it('4. a headless store: POST /v1/offers with its origin plus item_ref has the store price the item (the pricing session is canceled), and the offer buys it', async () => {
    const s = await store({ catalog: false, productPages: false });
    const offer = await user('POST', '/v1/offers', { url: `${s.origin}/`, item_ref: 'var_lamp' });
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    expect(offer.body).toMatchObject({
      url: `${s.origin}/`,
      item_ref: 'var_lamp',
      title: 'Desk Lamp',
      price: { amount: 12_000, currency: 'USD' },
      variants: [{ item_ref: 'var_lamp', price: { amount: 12_000, currency: 'USD' } }],
    });
    const [pricing] = [...s.sessions.values()];
    expect(pricing?.status).toBe('canceled');
    const created = await user('POST', '/v1/checkouts', {
      offer_id: offer.body.id,
      quantity: 1,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(created.body.status, JSON.stringify(created.body)).toBe('ready_to_confirm');
    expect((await user('POST', `/v1/checkouts/${created.body.id}/confirm`)).body.status).toBe('completed');
    expect(s.orders).toHaveLength(1);

    const unknown = await user('POST', '/v1/offers', { url: `${s.origin}/`, item_ref: 'no_such_item' });
    expect([unknown.status, unknown.body.error.code]).toEqual([422, 'PRODUCT_NOT_FOUND']);
    expect(unknown.body.error.message).toContain('No item no_such_item');
  });

  it('4. an offer from a catalog store with item_ref offers that variant first, and refuses one the product does not have', async () => {
    const s = await store();
    const red = await user('POST', '/v1/offers', { url: s.productUrl('mug'), item_ref: 'var_mug_red' });
    expect(red.status, JSON.stringify(red.body)).toBe(201);
    expect(red.body).toMatchObject({ item_ref: 'var_mug_red', availability: 'out_of_stock' });
    expect(red.body.variants.map((v: { item_ref: string }) => v.item_ref)).toEqual([
      'var_mug_red',
      'var_mug_blue',
    ]);
    const wrong = await user('POST', '/v1/offers', { url: s.productUrl('mug'), item_ref: 'var_lamp' });
    expect([wrong.status, wrong.body.error.param]).toEqual([400, 'item_ref']);
    // Nothing was opened at the store for either.
    expect(s.sessions.size).toBe(0);
  });

  it('8. an offer lists every variant when the catalog lookup answers only the matched one', async () => {
    const s = await store({ lookupMatchedOnly: true });
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('mug') });
    expect(offer.status, JSON.stringify(offer.body)).toBe(201);
    expect(offer.body.item_ref).toBe('var_mug_blue');
    expect(offer.body.variants.map((v: { item_ref: string }) => v.item_ref)).toEqual([
      'var_mug_blue',
      'var_mug_red',
    ]);
    expect(offer.body.variants[1]).toMatchObject({
      title: 'Ceramic Mug, red',
      price: { amount: 1900, currency: 'USD' },
      availability: 'out_of_stock',
    });
  });
});

describe('UCP stores: credentials and recovery', () => {
  const store = ucpStores();

  /** Everything the service logs, at every level, as text. */
  function capturedLogs() {
    const lines: string[] = [];
    const logger = pino(
      { level: 'trace' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    return { logger, text: () => lines.join('') };
  }

  it('7. an instrument offered with its credential: only its reference is kept and sent, and the credential is in no database file and no log', async () => {
    const logs = capturedLogs();
    const svc = await startTestService('commerce', {
      config: { storesAllowPrivate: true } as Partial<Config>,
      logger: logs.logger,
    });
    try {
      const liveKey = await makeKey(svc, 'live');
      const { call } = await liveUser({ svc, liveKey });
      const s = await store({ instrumentCredential: true });
      const ready = await offerAndCheckout(call, s);
      expect(ready.status).toBe('ready_to_confirm');
      expect((await call('POST', `/v1/checkouts/${ready.id}/confirm`)).body.status).toBe('completed');
      expect(completes(s)[0]?.body).toEqual({
        payment: {
          instruments: [
            { id: 'inst_account', handler_id: 'store_account', type: 'store_account', selected: true },
          ],
        },
      });
      const stored = await storedBytes(svc);
      expect(stored.map((f) => f.name)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^(commerce\.sqlite|table checkouts)$/)]),
      );
      for (const f of stored) expect(f.bytes.includes(STORE_CREDENTIAL), f.name).toBe(false);
      expect(logs.text()).not.toContain(STORE_CREDENTIAL);
    } finally {
      await svc.close();
    }
  });

  /**
   * A live service of the test's own (it is restarted), one approved user, and `recover`: a
   * restart with background recovery, then the checkout once it has left `confirming`.
   */
  async function restartable(
    run: (h: { call: Call; recover: (id: string) => Promise<Record<string, any>> }) => Promise<void>,
  ) {
    let svc = await startTestService('commerce', { config: { storesAllowPrivate: true } as Partial<Config> });
    try {
      const liveKey = await makeKey(svc, 'live');
      const { userToken } = await liveUser({ svc, liveKey });
      const call: Call = (...args) => as(svc, liveKey, userToken)(...args);
      const recover = async (id: string) => {
        svc = await svc.restart();
        svc.handle.startBackground();
        let after = (await call('GET', `/v1/checkouts/${id}`)).body;
        for (let i = 0; after.status === 'confirming' && i < 400; i++) {
          await new Promise((r) => setTimeout(r, 5));
          after = (await call('GET', `/v1/checkouts/${id}`)).body;
        }
        return after;
      };
      await run({ call, recover });
    } finally {
      await svc.close();
    }
  }

  it('1. recovery never re-sends a declined complete: after a restart only the checkout whose answer was lost is read again, and its order adopted', () =>
    restartable(async ({ call, recover }) => {
      const s = await store({ refusalStyle: 'detail' });
      const ready = () => offerAndCheckout(call, s);
      const declined = await ready();
      s.script.declineComplete = true;
      expect((await call('POST', `/v1/checkouts/${declined.id}/confirm`)).body.status).toBe('failed');
      // A second checkout whose complete is placed but its answer lost: recovery's own work.
      s.script.declineComplete = false;
      const lost = await ready();
      s.script.dropCompleteAnswers = 1;
      expect((await call('POST', `/v1/checkouts/${lost.id}/confirm`)).status).toBe(503);
      expect((await recover(lost.id)).status).toBe('completed');
      const bySession = (id: string) => completes(s).filter((r) => r.path.includes(`/${id}/`)).length;
      const sessions = [...s.sessions.keys()];
      expect(sessions.map(bySession)).toEqual([1, 1]);
      expect(s.orders).toHaveLength(1);
      expect((await call('GET', `/v1/checkouts/${declined.id}`)).body.error.code).toBe('PAYMENT_DECLINED');
    }));

  it.each([
    ['an HTML page', 'placed'],
    ['a body larger than the 1 MB cap', 'huge'],
  ] as const)(
    '3. a 2xx at complete with %s: the order the store placed is recorded from its checkout, never declined, never re-sent',
    (_what, answer) =>
      restartable(async ({ call }) => {
        const s = await store({ unreadableComplete: answer });
        const ready = await offerAndCheckout(call, s);
        const done = await call('POST', `/v1/checkouts/${ready.id}/confirm`);
        expect(done.status, JSON.stringify(done.body)).toBe(200);
        expect(done.body.status).toBe('completed');
        expect((await call('GET', `/v1/orders/${done.body.order_id}`)).body.merchant_order_ref).toBe('ord_1');
        expect(completes(s)).toHaveLength(1);
        expect(s.orders).toHaveLength(1);
      }),
  );

  it('3. an unreadable 2xx at complete while the store is still placing: confirming (not failed), and recovery reads the store instead of sending the complete again', () =>
    restartable(async ({ call, recover }) => {
      const s = await store({ unreadableComplete: 'pending' });
      const ready = await offerAndCheckout(call, s);
      const key = { 'idempotency-key': 'unreadable-1' };
      const first = await call('POST', `/v1/checkouts/${ready.id}/confirm`, undefined, key);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body).toMatchObject({ status: 'confirming', error: null });
      expect(first.body.merchant_messages.join('\n')).toContain('not a checkout session');
      // A keyed retry answers the same.
      const again = await call('POST', `/v1/checkouts/${ready.id}/confirm`, undefined, key);
      expect(again.body).toEqual(first.body);
      // The store finishes placing the order; recovery after a restart learns it from the store.
      s.payAtStore([...s.sessions.keys()][0] as string);
      const after = await recover(ready.id);
      expect(after.status).toBe('completed');
      expect((await call('GET', `/v1/orders/${after.order_id}`)).body.merchant_order_ref).toBe('ord_1');
      expect(completes(s)).toHaveLength(1);
      expect(s.orders).toHaveLength(1);
    }));

  it('3. an unreadable 2xx at complete, and the store never placed the order: recovery reads its checkout and ends ours ORDER_NOT_PLACED without a second complete', () =>
    restartable(async ({ call, recover }) => {
      const s = await store({ unreadableComplete: 'pending' });
      const ready = await offerAndCheckout(call, s);
      expect((await call('POST', `/v1/checkouts/${ready.id}/confirm`)).body.status).toBe('confirming');
      // The store gives up on it: its checkout is canceled, no order.
      const session = s.sessions.get([...s.sessions.keys()][0] as string);
      if (session) session.status = 'canceled';
      expect(await recover(ready.id)).toMatchObject({
        status: 'failed',
        error: { code: 'ORDER_NOT_PLACED' },
      });
      expect(completes(s)).toHaveLength(1);
      expect(s.orders).toEqual([]);
    }));
});
