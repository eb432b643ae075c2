import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeFetch } from '../../src/commerce/merchants/store-fetch.js';
import { as, type Commerce, startCommerce } from './helpers.js';
import { fixture, type LocalStore, shopifyPages, startLocalStore } from './long-tail-helpers.js';

const SHOPIFY_COAT = JSON.parse(fixture('shopify-product.js.json'));

/** Every product page case, on one long-tail store on loopback. */
const PAGES = {
  '/products/apron': { body: fixture('json-ld-single-offer.html') },
  '/p/throw': { body: fixture('json-ld-aggregate-offer.html') },
  '/p/socks': { body: fixture('json-ld-aggregate-offer-same-price.html') },
  '/tin': { body: fixture('json-ld-aggregate-offer-inner-offers.html') },
  '/products/kettle': { body: fixture('json-ld-graph.html') },
  '/mug': { body: fixture('json-ld-type-array.html') },
  '/products/canvas-tote': { body: fixture('json-ld-variants.html') },
  '/p/50': { body: fixture('json-ld-price-specification.html') },
  '/shop/bowl': { body: fixture('open-graph-only.html') },
  '/lamp': { body: fixture('two-prices.html') },
  '/mystery': { body: fixture('no-price.html') },
  ...shopifyPages('red-rain-coat', SHOPIFY_COAT, 'USD'),
  ...shopifyPages('oud', { ...SHOPIFY_COAT, variants: [{ id: 5001, price: 12500, available: true }] }, 'KWD'),
  ...shopifyPages(
    'yen-mug',
    { ...SHOPIFY_COAT, variants: [{ id: 6001, price: 1980, available: true }] },
    'jpy',
  ),
  // A theme whose JSON-LD prices the variant differently from the store's product JSON.
  '/products/stale-theme': {
    body: `<script type="application/ld+json">{"@type":"Product","name":"Red Rain Coat","offers":[
      {"@type":"Offer","url":"/products/stale-theme?variant=794864229","price":"149.00","priceCurrency":"USD","availability":"InStock"}]}</script>`,
  },
  '/products/stale-theme.js': { type: 'application/javascript', body: JSON.stringify(SHOPIFY_COAT) },
};

const money = (amount: number, currency: string) => ({ amount, currency });

describe('live offers from long-tail product pages (SERVICE_STORES_ALLOW_PRIVATE=1)', () => {
  let c: Commerce;
  let store: LocalStore;
  let other: LocalStore;
  beforeAll(async () => {
    c = await startCommerce({ storesAllowPrivate: true });
    store = await startLocalStore(PAGES);
    other = await startLocalStore(
      { '/about': { body: '<!doctype html><title>About us</title><p>We make things.</p>' } },
      '127.0.0.2',
    );
  });
  afterAll(async () => {
    await Promise.all([store.close(), other.close()]);
    await c.close();
  });
  const offer = (url: string) => as(c.svc, c.liveKey)('POST', '/v1/offers', { url });

  it('a page that shows no product is not a store this API supports, and nothing joins the catalog', async () => {
    const res = await offer(`${other.origin}/about`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('MERCHANT_NOT_SUPPORTED');
    const merchants = await as(c.svc, c.liveKey)('GET', '/v1/merchants?q=127.0.0.2');
    expect(merchants.body.merchants).toEqual([]);
  });

  it('reads a JSON-LD offer, and the store joins the catalog on first use', async () => {
    const before = await as(c.svc, c.liveKey)('GET', '/v1/merchants?q=127.0.0.1');
    expect(before.body.merchants).toEqual([]);
    const res = await offer(`${store.origin}/products/apron`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      merchant_id: 'lt_127.0.0.1',
      url: `${store.origin}/products/apron`,
      title: 'Linen Apron',
      price: money(1999, 'USD'),
      availability: 'in_stock',
      item_ref: 'APR-01',
      image_url: `${store.origin}/cdn/apron.jpg`,
    });
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.fetched_at)).toBe(15 * 60_000);
    const after = await as(c.svc, c.liveKey)('GET', '/v1/merchants?q=127.0.0.1');
    expect(after.body.merchants).toEqual([
      {
        id: 'lt_127.0.0.1',
        name: '127.0.0.1',
        domain: '127.0.0.1',
        tier: 'long_tail',
        route: 'browser',
        category: null,
        requires_connection: false,
        capabilities: { offers: true, checkout: true, orders: false },
        status: 'healthy',
      },
    ]);
    // The catalog is the same for everyone, but a sandbox key still cannot buy there.
    const sandbox = await as(c.svc, c.sandboxKey)('POST', '/v1/offers', {
      url: `${store.origin}/products/apron`,
    });
    expect(sandbox.body.error.code).toBe('SANDBOX_MERCHANT_REQUIRED');
  });

  it.each([
    ['AggregateOffer with equal low and high', '/p/socks', money(1250, 'EUR'), 'in_stock', 'Wool Socks'],
    [
      'offers inside an AggregateOffer, chosen by ?sku=',
      '/tin?sku=TIN-L',
      money(1400, 'GBP'),
      'out_of_stock',
      'Tea Tin',
    ],
    [
      'a Product in @graph, PreOrder as a URL',
      '/products/kettle',
      money(3490, 'EUR'),
      'preorder',
      'Enamel Kettle',
    ],
    ['@type as an array, JPY with no decimals', '/mug', money(1980, 'JPY'), 'in_stock', 'Stoneware Mug'],
    [
      'an array of offers, the first variant',
      '/products/canvas-tote',
      money(2500, 'USD'),
      'in_stock',
      'Canvas Tote',
    ],
    [
      'an array of offers, ?variant=',
      '/products/canvas-tote?variant=40002',
      money(2850, 'USD'),
      'out_of_stock',
      'Canvas Tote',
    ],
    ['priceSpecification, KWD with three decimals', '/p/50', money(12345, 'KWD'), 'in_stock', null],
    ['Open Graph product tags only', '/shop/bowl', money(129900, 'USD'), 'out_of_stock', 'Hand-thrown Bowl'],
    [
      'Shopify /products/<handle>.js, first variant',
      '/products/red-rain-coat',
      money(12900, 'USD'),
      'in_stock',
      'Red Rain Coat',
    ],
    [
      'Shopify, ?variant= of a sold-out variant',
      '/products/red-rain-coat?variant=794864233',
      money(12900, 'USD'),
      'out_of_stock',
      'Red Rain Coat',
    ],
    [
      'Shopify, ?variant= with its own price',
      '/products/red-rain-coat?variant=794864237',
      money(13900, 'USD'),
      'in_stock',
      'Red Rain Coat',
    ],
    ['Shopify subunits in KWD (3 decimals)', '/products/oud', money(12500, 'KWD'), 'in_stock', null],
    ['Shopify subunits in JPY (0 decimals)', '/products/yen-mug', money(1980, 'JPY'), 'in_stock', null],
  ])('%s: %s', async (_case, path, price, availability, title) => {
    const res = await offer(`${store.origin}${path}`);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.price).toEqual(price);
    expect(res.body.availability).toBe(availability);
    if (title) expect(res.body.title).toBe(title);
    // The selected variant is the offer's, and it is listed among the variants.
    expect(res.body.variants).toContainEqual(
      expect.objectContaining({ item_ref: res.body.item_ref, price, availability }),
    );
  });

  it('uses the Shopify variant ids as item_ref, so a checkout can fill the store’s cart', async () => {
    const res = await offer(`${store.origin}/products/red-rain-coat?variant=794864237`);
    expect(res.body.item_ref).toBe('794864237');
    expect(res.body.variants.map((v: { item_ref: string }) => v.item_ref)).toEqual([
      '794864237',
      '794864229',
      '794864233',
    ]);
    expect(store.hits).toContain('/products/red-rain-coat.js');
  });

  it.each([
    ['AMBIGUOUS_PRICE', '/p/throw', '45.00 EUR, 60.00 EUR'],
    ['AMBIGUOUS_PRICE', '/lamp', '19.99 USD'],
    [
      'AMBIGUOUS_PRICE',
      '/products/stale-theme',
      'says 129.00 USD for variant 794864229 but the page says 149.00 USD',
    ],
    ['NO_PRICE', '/mystery', 'no price'],
    ['VARIANT_NOT_FOUND', '/products/canvas-tote?variant=99999', '99999'],
    ['PRODUCT_NOT_FOUND', '/products/gone', '404'],
  ])('refuses to guess: %s for %s', async (code, path, words) => {
    const res = await offer(`${store.origin}${path}`);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe(code);
    expect(res.body.error.message).toContain(words);
    expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
  });
});

describe('store fetches without SERVICE_STORES_ALLOW_PRIVATE', () => {
  let c: Commerce;
  let store: LocalStore;
  beforeAll(async () => {
    c = await startCommerce({ storesAllowPrivate: false });
    store = await startLocalStore(PAGES);
  });
  afterAll(async () => {
    await store.close();
    await c.close();
  });

  it('refuses a loopback product page before any request reaches it, and nothing joins', async () => {
    for (const url of [
      `${store.origin}/products/apron`,
      `${store.origin.replace('http:', 'https:')}/products/apron`,
      `https://localhost:${new URL(store.origin).port}/products/apron`,
    ]) {
      const res = await as(c.svc, c.liveKey)('POST', '/v1/offers', { url });
      expect(res.status, url).toBe(400);
      expect(res.body.error.code).toBe('URL_NOT_ALLOWED');
    }
    expect(store.hits).toEqual([]);
    const merchants = await as(c.svc, c.liveKey)('GET', '/v1/merchants?q=127.0.0.1');
    expect(merchants.body.merchants).toEqual([]);
  });

  it('storeFetch, the one door for every store adapter, follows the same switch', async () => {
    const url = `${store.origin}/products/apron`;
    await expect(
      storeFetch({ config: { storesAllowPrivate: false } })(url, { timeoutMs: 5_000 }),
    ).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
    expect(store.hits).toEqual([]);
    const res = await storeFetch({ config: { storesAllowPrivate: true } })(url, { timeoutMs: 5_000 });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Linen Apron');
  });
});
