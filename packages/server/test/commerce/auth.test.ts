import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/api-key-hash.js';
import { MINUTE } from '../../src/platform/clock.js';
import {
  ADDRESS,
  as,
  BUYER,
  type Commerce,
  otherAccountKey,
  PROTOCOL,
  sandboxUser,
  startCommerce,
} from './helpers.js';

describe('commerce auth and isolation', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  it('answers 401 AUTHENTICATION_REQUIRED without a key and INVALID_API_KEY for a bad one', async () => {
    const none = await as(c.svc, null)('GET', '/v1/merchants');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('AUTHENTICATION_REQUIRED');
    const bad = await as(c.svc, `svc_test_${'x'.repeat(32)}`)('GET', '/v1/merchants');
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe('INVALID_API_KEY');
  });

  it('answers 401 USER_TOKEN_REQUIRED and INVALID_USER_TOKEN on every user-scoped route', async () => {
    const app = as(c.svc, c.sandboxKey);
    for (const [method, path] of [
      ['GET', '/v1/orders'],
      ['GET', '/v1/connections'],
      ['GET', '/v1/checkouts/chk_x'],
      ['POST', '/v1/checkouts/chk_x/confirm'],
      ['POST', '/v1/sandbox/orders/ord_x/advance'],
    ] as const) {
      const missing = await app(method, path);
      expect(missing.status, path).toBe(401);
      expect(missing.body.error.code).toBe('USER_TOKEN_REQUIRED');
      const wrong = await app(method, path, undefined, { 'service-user-token': 'user-sandbox-nope' });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('INVALID_USER_TOKEN');
    }
  });

  it('stores user tokens hashed only', async () => {
    const { userToken } = await sandboxUser(c.svc, c.sandboxKey);
    const rows = await c.handle.db.all<{ token_hash: string }>('SELECT token_hash FROM user_tokens');
    expect(rows.map((r) => r.token_hash)).toContain(sha256Hex(userToken));
    expect(JSON.stringify(rows)).not.toContain(userToken);
  });

  it('refuses a user token from the other environment', async () => {
    const { userToken } = await sandboxUser(c.svc, c.sandboxKey);
    const res = await as(c.svc, c.liveKey, userToken)('GET', '/v1/orders');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_USER_TOKEN');
  });

  it('keeps sandbox endpoints and stores to sandbox keys: SANDBOX_ONLY', async () => {
    const live = as(c.svc, c.liveKey);
    const pt = await live('POST', '/v1/sandbox/public_token', {});
    expect(pt.status).toBe(403);
    expect(pt.body.error.code).toBe('SANDBOX_ONLY');
    const m = await live('GET', '/v1/merchants/sandbox-protocol');
    expect(m.status).toBe(403);
    expect(m.body.error.code).toBe('SANDBOX_ONLY');
    const offer = await live('POST', '/v1/offers', { url: `${PROTOCOL}/mug` });
    expect(offer.status).toBe(403);
    expect(offer.body.error.code).toBe('SANDBOX_ONLY');
    const list = await live('GET', '/v1/merchants');
    expect(list.body.merchants.some((x: any) => x.sandbox)).toBe(false);
  });

  it('answers 404 for another user, account or environment exactly like a missing object', async () => {
    const alice = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'alice' });
    const bob = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'bob' });
    const chk = await alice.call('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/alice-lamp`,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    const done = await alice.call('POST', `/v1/checkouts/${chk.body.id}/confirm`);
    const offer = await as(c.svc, c.sandboxKey)('POST', '/v1/offers', { url: `${PROTOCOL}/alice-lamp` });

    // A second account with its own sandbox key.
    const other = await otherAccountKey(c);
    const stranger = await sandboxUser(c.svc, other, { client_user_id: 'alice' });

    const missing = await bob.call('GET', '/v1/checkouts/chk_doesnotexist');
    for (const call of [bob.call, stranger.call]) {
      for (const path of [`/v1/checkouts/${chk.body.id}`, `/v1/orders/${done.body.order_id}`]) {
        const res = await call('GET', path);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe(missing.body.error.code);
      }
      for (const op of ['confirm', 'cancel', 'update']) {
        const res = await call('POST', `/v1/checkouts/${chk.body.id}/${op}`);
        expect(res.status).toBe(404);
      }
      expect((await call('POST', `/v1/sandbox/orders/${done.body.order_id}/advance`)).status).toBe(404);
      expect((await call('GET', '/v1/orders')).body.orders).toEqual([]);
    }
    expect((await as(c.svc, other)('GET', `/v1/offers/${offer.body.id}`)).status).toBe(404);
    expect((await as(c.svc, c.liveKey)('GET', `/v1/offers/${offer.body.id}`)).status).toBe(404);
    // A checkout from another user's offer is refused the same way.
    const viaOffer = await stranger.call('POST', '/v1/checkouts', { offer_id: offer.body.id });
    expect(viaOffer.status).toBe(404);
  });

  it('exchanges a public token once, within 30 minutes, for its own environment only', async () => {
    const app = as(c.svc, c.sandboxKey);
    const pt = (await app('POST', '/v1/sandbox/public_token', {})).body.public_token;
    expect(
      (await as(c.svc, c.liveKey)('POST', '/v1/approval_tokens/exchange', { public_token: pt })).body.error
        .code,
    ).toBe('INVALID_PUBLIC_TOKEN');
    expect((await app('POST', '/v1/approval_tokens/exchange', { public_token: pt })).status).toBe(200);
    const again = await app('POST', '/v1/approval_tokens/exchange', { public_token: pt });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INVALID_PUBLIC_TOKEN');
    expect(again.body.error.message).toMatch(/once/);

    const late = (await app('POST', '/v1/sandbox/public_token', {})).body.public_token;
    c.svc.clock.advance(31 * MINUTE);
    const expired = await app('POST', '/v1/approval_tokens/exchange', { public_token: late });
    expect(expired.body.error.code).toBe('INVALID_PUBLIC_TOKEN');
    expect(expired.body.error.message).toMatch(/expired/);
  });

  it('rejects unknown fields and names them', async () => {
    const res = await as(c.svc, c.sandboxKey)('POST', '/v1/sandbox/public_token', {
      client_user_id: 'x',
      admin: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.message).toContain("'admin'");
  });
});
