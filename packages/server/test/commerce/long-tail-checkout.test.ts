import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, as, BUYER, type Call, type Commerce, startCommerce } from './helpers.js';
import { fixture, type LocalStore, liveUser, shopifyPages, startLocalStore } from './long-tail-helpers.js';

describe('live checkouts on the browser route hand off to the user’s browser', () => {
  let c: Commerce;
  let shopify: LocalStore;
  let plain: LocalStore;
  let user: Call;
  beforeAll(async () => {
    c = await startCommerce({ storesAllowPrivate: true });
    shopify = await startLocalStore(
      shopifyPages('red-rain-coat', JSON.parse(fixture('shopify-product.js.json')), 'USD'),
    );
    plain = await startLocalStore(
      { '/products/canvas-tote': { body: fixture('json-ld-variants.html') } },
      '127.0.0.2',
    );
    user = await liveUser(c.svc, c.liveKey);
  });
  afterAll(async () => {
    await Promise.all([shopify.close(), plain.close()]);
    await c.close();
  });

  it('a Shopify store: a prefilled cart link for the chosen variant and quantity', async () => {
    const offer = await as(c.svc, c.liveKey)('POST', '/v1/offers', {
      url: `${shopify.origin}/products/red-rain-coat?variant=794864237`,
    });
    expect(offer.status).toBe(201);
    const res = await user('POST', '/v1/checkouts', { offer_id: offer.body.id, quantity: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      merchant_id: 'lt_127.0.0.1',
      route: 'browser',
      status: 'requires_user_action',
      line_items: [
        {
          item_ref: '794864237',
          title: 'Large',
          quantity: 2,
          unit_price: { amount: 13900, currency: 'USD' },
        },
      ],
      totals: {
        subtotal: { amount: 27800, currency: 'USD' },
        shipping: null,
        tax: null,
        total: { amount: 27800, currency: 'USD' },
      },
      next_action: { type: 'browser', url: `${shopify.origin}/cart/794864237:2` },
      order_id: null,
      error: null,
    });
    expect(res.body.next_action.description).toContain('this API is not told the outcome');
    expect(res.body.merchant_messages.join(' ')).toContain('Shipping and tax are added by the store');

    const fromLink = await user('POST', '/v1/checkouts', {
      product_url: `${shopify.origin}/products/red-rain-coat`,
      item_ref: '794864229',
      quantity: 1,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(fromLink.status).toBe(201);
    expect(fromLink.body.next_action).toMatchObject({
      type: 'browser',
      url: `${shopify.origin}/cart/794864229:1`,
    });
  });

  it('another long-tail store: the product page itself, and it says so', async () => {
    const url = `${plain.origin}/products/canvas-tote?variant=40003`;
    const res = await user('POST', '/v1/checkouts', { product_url: url, quantity: 1 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      merchant_id: 'lt_127.0.0.2',
      status: 'requires_user_action',
      totals: { total: { amount: 3000, currency: 'USD' } },
      next_action: { type: 'browser', url },
    });
    expect(res.body.next_action.description).toContain('has no way for this API to fill a cart');
  });

  it('a handed-off checkout cannot be updated or confirmed here, only cancelled', async () => {
    const created = await user('POST', '/v1/checkouts', {
      product_url: `${shopify.origin}/products/red-rain-coat`,
      quantity: 1,
    });
    const id = created.body.id;
    const update = await user('POST', `/v1/checkouts/${id}/update`, { shipping_address: ADDRESS });
    expect(update.status).toBe(422);
    expect(update.body.error.code).toBe('UPDATE_NOT_SUPPORTED');
    const confirm = await user('POST', `/v1/checkouts/${id}/confirm`);
    expect(confirm.status).toBe(409);
    expect(confirm.body.error.code).toBe('CHECKOUT_STATE_INVALID');
    const after = await user('GET', `/v1/checkouts/${id}`);
    expect(after.body).toMatchObject({ status: 'requires_user_action', updated_at: created.body.updated_at });
    const cancel = await user('POST', `/v1/checkouts/${id}/cancel`);
    expect(cancel.body).toMatchObject({ status: 'canceled', next_action: null });
  });

  it('a long-tail store cannot be connected: there is no account to link, the user signs in in their browser', async () => {
    const res = await as(c.svc, c.liveKey)('POST', '/v1/approval_tokens', {
      client_user_id: 'connect-long-tail',
      redirect_uri: 'https://app.example/callback',
      merchant_ids: ['rei'],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'MERCHANT_NOT_SUPPORTED', param: 'merchant_ids[0]' });
    expect(res.body.error.message).toContain("handed to the user's browser");
  });

  it('a sold-out variant fails at once and hands nothing off', async () => {
    const res = await user('POST', '/v1/checkouts', {
      product_url: `${shopify.origin}/products/red-rain-coat?variant=794864233`,
      quantity: 1,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'failed', next_action: null, error: { code: 'OUT_OF_STOCK' } });
  });
});

describe('major retailers with a live key', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  it('offers: MERCHANT_NOT_SUPPORTED; checkouts: the device session needs software this product does not ship', async () => {
    const offer = await as(c.svc, c.liveKey)('POST', '/v1/offers', { url: 'https://www.amazon.com/dp/B000' });
    expect(offer.status).toBe(422);
    expect(offer.body.error.code).toBe('MERCHANT_NOT_SUPPORTED');
    const user = await liveUser(c.svc, c.liveKey);
    const res = await user('POST', '/v1/checkouts', { product_url: 'https://www.target.com/p/kettle/-/A-1' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('MERCHANT_NOT_SUPPORTED');
    expect(res.body.error.message).toBe(
      "Target is a major retailer: its checkout runs in a device session, which needs software on the user's device that this product does not ship. Live orders at Target are not possible with svc-server.",
    );
  });
});
