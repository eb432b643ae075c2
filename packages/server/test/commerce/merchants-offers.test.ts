import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRY, SANDBOX_STORES } from '../../src/commerce/merchants/registry.js';
import { MINUTE } from '../../src/platform/clock.js';
import { as, type Commerce, PROTOCOL, sandboxUser, startCommerce } from './helpers.js';

describe('merchants', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
    const app = as(c.svc, c.sandboxKey);
    // Five unlisted protocol stores join the catalog on first use.
    for (const name of ['acme-tea', 'blue-yarn', 'cedar-toys', 'dune-books', 'elm-coffee']) {
      const res = await app('POST', '/v1/offers', {
        url: `https://${name}.shops.sandbox.test/products/thing`,
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => c.close());

  it('ships a believable registry with every tier and route', () => {
    expect(REGISTRY.length).toBeGreaterThanOrEqual(24);
    for (const tier of ['major', 'protocol', 'long_tail'])
      expect(REGISTRY.some((m) => m.tier === tier)).toBe(true);
    const sandbox = SANDBOX_STORES;
    expect(sandbox.find((m) => m.tier === 'major')?.route).toBe('device_session');
    expect(sandbox.find((m) => m.tier === 'protocol')?.route).toBe('ucp');
    expect(sandbox.find((m) => m.tier === 'long_tail')?.route).toBe('browser');
    expect(sandbox.some((m) => m.requires_connection)).toBe(true);
  });

  it('lists the registry first, then the catalog, with sandbox stores for sandbox keys only', async () => {
    const res = await as(c.svc, c.sandboxKey)('GET', '/v1/merchants');
    expect(res.status).toBe(200);
    const ids = res.body.merchants.map((m: any) => m.id);
    expect(ids.slice(0, REGISTRY.length)).toEqual(REGISTRY.map((m) => m.id));
    expect(ids).toContain('sandbox-megamart');
    expect(ids.slice(-5)).toEqual([
      'ucp_acme-tea.shops.sandbox.test',
      'ucp_blue-yarn.shops.sandbox.test',
      'ucp_cedar-toys.shops.sandbox.test',
      'ucp_dune-books.shops.sandbox.test',
      'ucp_elm-coffee.shops.sandbox.test',
    ]);
    expect(res.body.has_more).toBe(false);
    expect(res.body.next_after).toBeNull();
    const live = await as(c.svc, c.liveKey)('GET', '/v1/merchants');
    expect(live.body.merchants.map((m: any) => m.id)).toEqual(REGISTRY.map((m) => m.id));
  });

  it('pages the catalog with limit and an opaque after cursor', async () => {
    const app = as(c.svc, c.sandboxKey);
    const first = await app('GET', '/v1/merchants?limit=2');
    const catalog = (r: any) =>
      r.body.merchants.filter((m: any) => m.id.startsWith('ucp_')).map((m: any) => m.id);
    expect(catalog(first)).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const second = await app('GET', `/v1/merchants?limit=2&after=${first.body.next_after}`);
    expect(second.body.merchants).toHaveLength(2);
    expect(second.body.merchants.every((m: any) => m.id.startsWith('ucp_'))).toBe(true);
    const third = await app('GET', `/v1/merchants?limit=2&after=${second.body.next_after}`);
    expect(third.body.merchants).toHaveLength(1);
    expect(third.body.has_more).toBe(false);
    expect(new Set([...catalog(first), ...catalog(second), ...catalog(third)]).size).toBe(5);
  });

  it('searches names, domains and categories with q', async () => {
    const app = as(c.svc, c.sandboxKey);
    const byName = await app('GET', '/v1/merchants?q=glossier');
    expect(byName.body.merchants.map((m: any) => m.id)).toEqual(['glossier']);
    const byDomain = await app('GET', '/v1/merchants?q=bestbuy.com');
    expect(byDomain.body.merchants.map((m: any) => m.id)).toEqual(['best-buy']);
    const byCategory = await app('GET', '/v1/merchants?q=footwear');
    expect(byCategory.body.merchants.map((m: any) => m.id).sort()).toEqual(['allbirds', 'rothys']);
    const catalog = await app('GET', '/v1/merchants?q=cedar');
    expect(catalog.body.merchants.map((m: any) => m.id)).toEqual(['ucp_cedar-toys.shops.sandbox.test']);
  });

  it('validates limit and after', async () => {
    const app = as(c.svc, c.sandboxKey);
    for (const q of ['limit=0', 'limit=201', 'limit=abc', 'after=garbage', 'color=red']) {
      const res = await app('GET', `/v1/merchants?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
    }
  });

  it('gets one merchant, and 404 NOT_FOUND for an unknown id', async () => {
    const app = as(c.svc, c.sandboxKey);
    const one = await app('GET', '/v1/merchants/sandbox-members');
    expect(one.body).toMatchObject({
      requires_connection: true,
      sandbox: true,
      capabilities: { checkout: true },
    });
    expect((await app('GET', '/v1/merchants/ucp_acme-tea.shops.sandbox.test')).status).toBe(200);
    const missing = await app('GET', '/v1/merchants/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });
});

describe('offers', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  it('gives the same product for the same link, with 15 minutes of life', async () => {
    const app = as(c.svc, c.sandboxKey);
    const a = await app('POST', '/v1/offers', { url: `${PROTOCOL}/linen-throw-blanket` });
    const b = await app('POST', '/v1/offers', { url: `${PROTOCOL}/linen-throw-blanket` });
    expect(a.status).toBe(201);
    expect(a.body.title).toBe('Linen Throw Blanket');
    const { id: _a, ...restA } = a.body;
    const { id: _b, ...restB } = b.body;
    expect(restA).toEqual(restB);
    expect(a.body.price.currency).toBe('USD');
    expect(Number.isInteger(a.body.price.amount)).toBe(true);
    expect(a.body.image_url).toMatch(/^https:\/\/protocol-shop\.sandbox\.test\/cdn\//);
    expect(Date.parse(a.body.expires_at) - Date.parse(a.body.fetched_at)).toBe(15 * MINUTE);
    expect(a.body.variants[0].item_ref).toBe(a.body.item_ref);
    expect((await app('GET', `/v1/offers/${a.body.id}`)).body).toEqual(a.body);
  });

  it('reports availability words and fixed prices', async () => {
    const app = as(c.svc, c.sandboxKey);
    expect(
      (await app('POST', '/v1/offers', { url: `${PROTOCOL}/out-of-stock-vase` })).body.availability,
    ).toBe('out_of_stock');
    expect((await app('POST', '/v1/offers', { url: `${PROTOCOL}/preorder-vase` })).body.availability).toBe(
      'preorder',
    );
    expect((await app('POST', '/v1/offers', { url: `${PROTOCOL}/price-1234-vase` })).body.price.amount).toBe(
      1234,
    );
    expect((await app('POST', '/v1/offers', { url: `${PROTOCOL}/no-image-vase` })).body.image_url).toBeNull();
  });

  it('refuses major retailers, unknown stores, real stores in the sandbox and stores that are down', async () => {
    const app = as(c.svc, c.sandboxKey);
    const major = await app('POST', '/v1/offers', { url: 'https://megamart.sandbox.test/products/tv' });
    expect(major.status).toBe(422);
    expect(major.body.error.code).toBe('MERCHANT_NOT_SUPPORTED');
    const realMajor = await app('POST', '/v1/offers', { url: 'https://www.amazon.com/dp/B000' });
    expect(realMajor.body.error.code).toBe('MERCHANT_NOT_SUPPORTED');
    const unknown = await app('POST', '/v1/offers', { url: 'https://some-random-store.example/p/1' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.code).toBe('MERCHANT_NOT_SUPPORTED');
    const real = await app('POST', '/v1/offers', { url: 'https://www.allbirds.com/products/wool-runners' });
    expect(real.status).toBe(422);
    expect(real.body.error.code).toBe('SANDBOX_MERCHANT_REQUIRED');
    const down = await app('POST', '/v1/offers', { url: 'https://outage.sandbox.test/products/x' });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('MERCHANT_UNAVAILABLE');
    // A live key reaches the real UCP store, which these machines cannot: unavailable, not a wall.
    const liveUnreachable = await as(c.svc, c.liveKey)('POST', '/v1/offers', {
      url: 'https://www.allbirds.com/products/x',
    });
    expect(liveUnreachable.status).toBe(503);
    expect(liveUnreachable.body.error.code).toBe('MERCHANT_UNAVAILABLE');
    const bad = await app('POST', '/v1/offers', { url: 'not a url' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('url');
  });

  it('refuses a checkout on an expired offer with OFFER_EXPIRED', async () => {
    const user = await sandboxUser(c.svc, c.sandboxKey);
    const offer = await as(c.svc, c.sandboxKey)('POST', '/v1/offers', { url: `${PROTOCOL}/teapot` });
    c.svc.clock.advance(15 * MINUTE);
    const res = await user.call('POST', '/v1/checkouts', { offer_id: offer.body.id });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('OFFER_EXPIRED');
    expect(res.body.error.param).toBe('offer_id');
  });
});
