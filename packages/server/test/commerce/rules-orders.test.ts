import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOUR } from '../../src/platform/clock.js';
import { ADDRESS, as, BUYER, type Commerce, PROTOCOL, sandboxUser, startCommerce } from './helpers.js';

const ready = { buyer: BUYER, shipping_address: ADDRESS };

describe('approval rules', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  it('allowed_merchants: another store is MERCHANT_NOT_ALLOWED', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, {
      rules: { allowed_merchants: ['sandbox-corner'] },
    });
    const res = await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/mug`, ...ready });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('MERCHANT_NOT_ALLOWED');
  });

  it('max_per_order: a breach is an error and no order is placed', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { rules: { max_per_order: 2000 } });
    const chk = (
      await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/price-2500-vase`, ...ready })
    ).body;
    const res = await call('POST', `/v1/checkouts/${chk.id}/confirm`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('MAX_PER_ORDER_EXCEEDED');
    expect((await call('GET', `/v1/checkouts/${chk.id}`)).body.status).toBe('ready_to_confirm');
    expect((await call('GET', '/v1/orders')).body.orders).toEqual([]);
  });

  it('max_per_day: completed orders in the rolling 24 hours count', async () => {
    // price-1000 ships for 5.99 and is taxed 8.25% in the US: 1000 + 599 + 83 = 1682 per order.
    const { call } = await sandboxUser(c.svc, c.sandboxKey, {
      client_user_id: 'daily',
      rules: { max_per_day: 4000 },
    });
    const buy = async () => {
      const chk = (
        await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/price-1000-book`, ...ready })
      ).body;
      expect(chk.totals.total.amount).toBe(1682);
      return call('POST', `/v1/checkouts/${chk.id}/confirm`);
    };
    expect((await buy()).body.status).toBe('completed');
    c.svc.clock.advance(12 * HOUR);
    expect((await buy()).body.status).toBe('completed');
    const third = await buy();
    expect(third.status).toBe(422);
    expect(third.body.error.code).toBe('MAX_PER_DAY_EXCEEDED');
    c.svc.clock.advance(12 * HOUR + 1);
    expect((await buy()).body.status).toBe('completed');
  });

  it('rules in another currency than the store: RULES_CURRENCY_MISMATCH', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, {
      rules: { max_per_order: 100000, currency: 'eur' },
    });
    const chk = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/mug`, ...ready })).body;
    const res = await call('POST', `/v1/checkouts/${chk.id}/confirm`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('RULES_CURRENCY_MISMATCH');
  });

  it('confirm_above: requires_user_confirmation, then the sandbox user_confirm lets confirm through', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { rules: { confirm_above: 1500 } });
    const small = (
      await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/price-500-pen`, ...ready })
    ).body;
    expect(small).toMatchObject({ status: 'ready_to_confirm', requires_user_confirmation: false });
    const big = (
      await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/price-5000-chair`, ...ready })
    ).body;
    expect(big).toMatchObject({ status: 'requires_user_action', requires_user_confirmation: true });
    expect(big.next_action.type).toBe('user_confirmation');
    expect(big.next_action.url).toContain('/hosted/confirm?token=');
    const early = await call('POST', `/v1/checkouts/${big.id}/confirm`);
    expect(early.body.error.code).toBe('CHECKOUT_STATE_INVALID');
    const confirmed = await call('POST', `/v1/sandbox/checkouts/${big.id}/user_confirm`);
    expect(confirmed.body).toMatchObject({ status: 'ready_to_confirm' });
    expect(confirmed.body.user_confirmed_at).toBe(c.svc.clock.now().toISOString());
    expect((await call('POST', `/v1/checkouts/${big.id}/confirm`)).body.status).toBe('completed');
  });

  it('validates the rules object', async () => {
    const app = as(c.svc, c.sandboxKey);
    for (const rules of [
      { max_per_order: -1 },
      { max_per_order: 1.5 },
      { currency: 'dollars' },
      { cap: 1 },
      { allowed_merchants: ['nope'] },
    ]) {
      const res = await app('POST', '/v1/sandbox/public_token', { rules });
      expect(res.status, JSON.stringify(rules)).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
  });
});

describe('orders', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  it('advances placed -> shipped -> delivered -> returned, and cancels only from placed', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey);
    const place = async () => {
      const chk = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/globe`, ...ready })).body;
      return (await call('POST', `/v1/checkouts/${chk.id}/confirm`)).body.order_id as string;
    };
    const id = await place();
    expect((await call('GET', `/v1/orders/${id}`)).body.status).toBe('placed');
    expect((await call('POST', `/v1/sandbox/orders/${id}/advance`)).body.status).toBe('shipped');
    const cancelLate = await call('POST', `/v1/sandbox/orders/${id}/advance`, { status: 'canceled' });
    expect(cancelLate.status).toBe(409);
    expect(cancelLate.body.error.code).toBe('ORDER_STATE_INVALID');
    expect((await call('POST', `/v1/sandbox/orders/${id}/advance`)).body.status).toBe('delivered');
    expect((await call('POST', `/v1/sandbox/orders/${id}/advance`)).body.status).toBe('returned');
    const final = await call('POST', `/v1/sandbox/orders/${id}/advance`);
    expect(final.status).toBe(409);
    expect(final.body.error.message).toContain('final');

    const other = await place();
    expect(
      (await call('POST', `/v1/sandbox/orders/${other}/advance`, { status: 'canceled' })).body.status,
    ).toBe('canceled');
    expect(
      (await call('POST', `/v1/sandbox/orders/${other}/advance`, { status: 'shipped', note: 1 })).status,
    ).toBe(400);
  });

  it('lists the newest first, up to 100', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'big-spender' });
    const buy = async (i: number): Promise<string> => {
      const chk = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/item-${i}`, ...ready }))
        .body;
      return (await call('POST', `/v1/checkouts/${chk.id}/confirm`)).body.order_id;
    };
    // 101 orders at 9 times. The first, alone at its time, is the one the list leaves out. The
    // next seven times hold 14 orders each, placed at once: one by one, the 202 requests took most
    // of the test's 20 s on a loaded machine (on PostgreSQL each waits on the database's round
    // trips; at once they overlap). The list orders those by time. The last two share a time and
    // are placed one after the other, so the order they were placed in breaks the tie.
    const first = await buy(0);
    const atOnce: string[][] = [];
    for (let t = 0; t < 7; t++) {
      c.svc.clock.advance(1000);
      atOnce.push(await Promise.all(Array.from({ length: 14 }, (_, j) => buy(1 + t * 14 + j))));
    }
    c.svc.clock.advance(1000);
    const last = [await buy(99), await buy(100)];

    const list = ((await call('GET', '/v1/orders')).body.orders as { id: string }[]).map((o) => o.id);
    expect(list).toHaveLength(100);
    expect(list).not.toContain(first);
    expect(list.slice(0, 2)).toEqual([...last].reverse());
    atOnce.reverse().forEach((placed, t) => {
      const shown = list.slice(2 + t * 14, 16 + t * 14);
      expect(shown.sort(), `placed at time ${7 - t}`).toEqual([...placed].sort());
    });
  });
});
