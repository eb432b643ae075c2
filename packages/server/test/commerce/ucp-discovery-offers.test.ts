import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writerWork } from '../../src/platform/sliced/stringify.js';
import { readerWork, SLICE_UNITS } from '../../src/platform/sliced/work.js';
import { problems, SCHEMA } from '../fakes/ucp-schemas.js';
import { watchSlices } from '../helpers/slice-watch.js';
import { api } from '../helpers/start.js';
import { as, type Commerce } from './helpers.js';
import { startLiveCommerce, ucpStores } from './ucp-helpers.js';

const MINUTE = 60_000;

describe('UCP stores: our profile, discovery and offers', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startLiveCommerce();
  });
  afterAll(() => c.close());
  const store = ucpStores();

  it('serves our platform profile at /.well-known/ucp, valid against the UCP schema, and names it in UCP-Agent', async () => {
    const res = await api(c.svc.url, 'GET', '/.well-known/ucp');
    expect(res.status).toBe(200);
    expect(problems(SCHEMA.platformProfile, res.body)).toEqual([]);
    expect(res.body.ucp.services['dev.ucp.shopping'][0].transport).toBe('rest');

    const s = await store();
    const offer = await as(c.svc, c.liveKey)('POST', '/v1/offers', { url: s.productUrl('mug') });
    expect(offer.status).toBe(201);
    const agents = new Set(s.requests.map((r) => r.headers['ucp-agent']));
    // The profile is asked without a version (none is known yet); every operation names the store's.
    const profile = `profile="http://127.0.0.1:${c.svc.config.commerce.port}/.well-known/ucp"`;
    expect([...agents]).toEqual([profile, `${profile}, version="2026-04-08"`]);
  });

  /*
   * A store decides how many variants its product lists. Filtering, finding the link's variant and
   * mapping them were three walks of every variant in one call after the answer was parsed (in
   * slices); now one walk in slices (ucp/mapping.ts, offerVariantsSteps). Counted, not timed: the
   * work beyond the parse of the store's answers and the offer's writing is the walk's, which the
   * old code did not count.
   */
  it('maps a product of 2,500 variants (near the 1 MiB answer cap) into the offer in slices', async () => {
    const s = await store();
    const mug = s.products[0] as (typeof s.products)[number];
    const count = 2_500;
    const base = mug.variants[0] as (typeof mug.variants)[number];
    for (let i = 0; i < count; i++) {
      mug.variants.push({ ...base, id: `var_${i}`, sku: `S${i}`, title: `Mug ${i}`, price: 100 + i });
    }
    const slices = watchSlices();
    const before = readerWork.units;
    const wrote = writerWork.chars;
    const res = await as(c.svc, c.liveKey)('POST', '/v1/offers', {
      url: s.productUrl('mug', 'variant=var_1234'),
    });
    // Less the offer's JSON, written in slices too (platform/sliced/stringify.ts).
    const units = readerWork.units - before - (writerWork.chars - wrote);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    expect(res.body.item_ref).toBe('var_1234');
    expect(res.body.variants).toHaveLength(mug.variants.length);

    // The store's catalog answers, asked again as the adapter asked them: what their parse counted.
    let parsed = 0;
    for (const asked of s.requests.filter((r) => r.path.startsWith('/ucp/v1/catalog/'))) {
      const answer = await fetch(`${s.origin}${asked.path}`, {
        method: 'POST',
        headers: Object.fromEntries(
          Object.entries(asked.headers)
            .filter(([name]) => !['host', 'content-length', 'connection'].includes(name))
            .map(([name, value]) => [name, String(value)]),
        ),
        body: JSON.stringify(asked.body),
      });
      parsed += (await answer.text()).length;
    }
    expect(parsed).toBeGreaterThan(count * 100);
    // The walk: a unit per variant listed and per variant kept, and one per character of each id.
    const ids = mug.variants.reduce((sum, v) => sum + v.id.length, 0);
    expect(units - parsed).toBeGreaterThanOrEqual(2 * mug.variants.length + ids);
    expect(slices.longestSlice).toBeLessThanOrEqual(2 * SLICE_UNITS);
  });

  for (const shape of ['2026-01-23', '2026-01-11'] as const) {
    it(`discovers a store serving the ${shape} profile shape, joins it to the catalog, and offers from its catalog`, async () => {
      const s = await store({ shape });
      const live = as(c.svc, c.liveKey);
      const res = await live('POST', '/v1/offers', { url: s.productUrl('mug') });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const domain = new URL(s.origin).hostname;
      expect(res.body).toMatchObject({
        merchant_id: `ucp_${domain}`,
        title: 'Ceramic Mug',
        price: { amount: 1800, currency: 'USD' },
        availability: 'in_stock',
        item_ref: 'var_mug_blue',
        image_url: `${s.origin}/cdn/mug.jpg`,
        variants: [
          {
            item_ref: 'var_mug_blue',
            title: 'Ceramic Mug, blue',
            price: { amount: 1800, currency: 'USD' },
            availability: 'in_stock',
          },
          {
            item_ref: 'var_mug_red',
            title: 'Ceramic Mug, red',
            price: { amount: 1900, currency: 'USD' },
            availability: 'out_of_stock',
          },
        ],
      });
      expect(Date.parse(res.body.expires_at) - Date.parse(res.body.fetched_at)).toBe(15 * MINUTE);
      expect(s.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /.well-known/ucp',
        'POST /ucp/v1/catalog/lookup',
      ]);

      const merchant = await live('GET', `/v1/merchants/ucp_${domain}`);
      expect(merchant.body).toMatchObject({
        domain,
        tier: 'protocol',
        route: 'ucp',
        status: 'healthy',
        capabilities: { offers: true, checkout: true },
      });
      const listed = await live('GET', `/v1/merchants?q=${encodeURIComponent(domain)}`);
      expect(listed.body.merchants.map((m: { id: string }) => m.id)).toContain(`ucp_${domain}`);
    });
  }

  it('a UCP store cannot be offered for connecting: no identity linking, guest checkout', async () => {
    const s = await store();
    const live = as(c.svc, c.liveKey);
    await live('POST', '/v1/offers', { url: s.productUrl('mug') });
    const id = `ucp_${new URL(s.origin).hostname}`;
    for (const ids of [[id], ['glossier']]) {
      const res = await live('POST', '/v1/approval_tokens', {
        client_user_id: 'connect-ucp',
        redirect_uri: 'https://app.example/callback',
        merchant_ids: ids,
      });
      expect(res.status, ids[0]).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'MERCHANT_NOT_SUPPORTED', param: 'merchant_ids[0]' });
      expect(res.body.error.message).toContain('UCP identity linking');
    }
  });

  it('odd links: a trailing slash still finds the product; a malformed escape is a clear 422', async () => {
    const s = await store();
    const live = as(c.svc, c.liveKey);
    const slash = await live('POST', '/v1/offers', { url: `${s.productUrl('mug')}/` });
    expect(slash.status).toBe(201);
    expect(slash.body.item_ref).toBe('var_mug_blue');
    const bad = await live('POST', '/v1/offers', { url: `${s.origin}/products/mug%E0%A4%A` });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('PRODUCT_NOT_FOUND');
  });

  it('selects the variant the URL names', async () => {
    const s = await store();
    const res = await as(c.svc, c.liveKey)('POST', '/v1/offers', {
      url: s.productUrl('mug', 'variant=var_mug_red'),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      item_ref: 'var_mug_red',
      availability: 'out_of_stock',
      price: { amount: 1900 },
    });
  });

  it('reads the product page when the store has no catalog capability', async () => {
    const s = await store({ catalog: false });
    const res = await as(c.svc, c.liveKey)('POST', '/v1/offers', { url: s.productUrl('lamp') });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Desk Lamp',
      price: { amount: 12_000, currency: 'USD' },
      availability: 'in_stock',
      image_url: `${s.origin}/cdn/lamp.jpg`,
    });
    expect(s.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /.well-known/ucp',
      'GET /products/lamp',
    ]);
  });

  it('a sandbox key never discovers a live store, and a site without /.well-known/ucp is not a UCP store', async () => {
    const s = await store();
    const sandbox = await as(c.svc, c.sandboxKey)('POST', '/v1/offers', { url: s.productUrl('mug') });
    expect(sandbox.status).toBe(422);
    expect(s.requests).toEqual([]);
    const asked: string[] = [];
    const site = createServer((req, res) => {
      asked.push(req.url ?? '');
      // No UCP profile; a page that describes no product.
      if (req.url === '/.well-known/ucp') res.writeHead(404).end();
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>A blog</title></html>');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = site.address() as AddressInfo;
      const none = await as(c.svc, c.liveKey)('POST', '/v1/offers', { url: `http://127.0.0.1:${port}/p/1` });
      expect(none.status).toBe(422);
      expect(none.body.error.code).toBe('MERCHANT_NOT_SUPPORTED');
      // Discovery asks for the UCP profile first, then the long-tail step reads the page: no product there.
      expect(asked).toEqual(['/.well-known/ucp', '/p/1']);
    } finally {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
    }
    // Our own platform profile names no store endpoint: a platform is not a store. The long-tail
    // step then reads the link, which our service answers 404.
    const platform = await as(c.svc, c.liveKey)('POST', '/v1/offers', { url: `${c.svc.url}/p/1` });
    expect(platform.body.error.code).toBe('PRODUCT_NOT_FOUND');
  });

  it('a store that is down answers 503 MERCHANT_UNAVAILABLE with Retry-After, and works again when it is back', async () => {
    const s = await store();
    const live = as(c.svc, c.liveKey);
    expect((await live('POST', '/v1/offers', { url: s.productUrl('mug') })).status).toBe(201);
    s.script.down = true;
    const down = await live('POST', '/v1/offers', { url: s.productUrl('mug') });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('MERCHANT_UNAVAILABLE');
    expect(down.headers.get('retry-after')).toBe('5');
    s.script.down = false;
    expect((await live('POST', '/v1/offers', { url: s.productUrl('mug') })).status).toBe(201);
  });

  it('store health is observed for UCP stores too: down after three failures, then refused with the backoff until the probe', async () => {
    const s = await store();
    const live = as(c.svc, c.liveKey);
    const offer = () => live('POST', '/v1/offers', { url: s.productUrl('mug') });
    const status = async () =>
      (await live('GET', `/v1/merchants/ucp_${new URL(s.origin).hostname}`)).body.status;
    expect((await offer()).status).toBe(201);
    s.script.down = true;
    const first = await offer();
    expect([first.status, first.headers.get('retry-after')]).toEqual([503, '5']);
    expect(await status()).toBe('degraded');
    await offer();
    const third = await offer();
    expect([third.status, third.body.error.code]).toEqual([503, 'MERCHANT_UNAVAILABLE']);
    expect(third.headers.get('retry-after')).toBe('30');
    expect(await status()).toBe('down');
    // While down, the gate answers and nothing reaches the store.
    const asked = s.requests.length;
    c.svc.clock.advance(10_000);
    const refused = await offer();
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '20']);
    expect(s.requests.length).toBe(asked);
    // Back, and the backoff passed: the probe goes through and the store is healthy again.
    s.script.down = false;
    c.svc.clock.advance(20_000);
    expect((await offer()).status).toBe(201);
    expect(await status()).toBe('healthy');
  });
});
