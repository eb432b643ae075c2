import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProductPage } from '../../src/commerce/merchants/product-page/index.js';
import { readerWork } from '../../src/platform/sliced/work.js';
import { as, type Commerce, startCommerce } from './helpers.js';
import { fixture, type LocalStore, liveUser, startLocalStore } from './long-tail-helpers.js';

/*
 * A long-tail store's page is fetched and parsed once per request: a store not yet in the catalog
 * is read to decide whether it joins and then for its offer, and a checkout by link is read for the
 * product and then for the quote. Counted (store hits, the reader's work units), never timed.
 */
describe('a long-tail page is read once per request, over HTTP', () => {
  const PAGE = '/products/canvas-tote';
  const html = fixture('json-ld-variants.html');
  let c: Commerce;
  let store: LocalStore;
  beforeAll(async () => {
    c = await startCommerce({ storesAllowPrivate: true });
    store = await startLocalStore({ [PAGE]: { body: html } });
  });
  afterAll(async () => {
    await store.close();
    await c.close();
  });

  /** What one request cost: how often the store was asked for the page, and the reader's work units. */
  async function cost(request: () => Promise<{ status: number; body: unknown }>) {
    store.hits.length = 0;
    const before = readerWork.units;
    const res = await request();
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { pageFetches: store.hits.filter((h) => h === PAGE).length, units: readerWork.units - before };
  }
  const offer = () => as(c.svc, c.liveKey)('POST', '/v1/offers', { url: `${store.origin}${PAGE}` });

  it('the offer that makes a store join the catalog reads its page once, as later offers do', async () => {
    const joining = await cost(offer);
    const joined = await cost(offer);
    expect(joining.pageFetches).toBe(1);
    expect(joined.pageFetches).toBe(1);
    // Both answers are written the same way, so the same units mean the same one read.
    expect(joining.units).toBe(joined.units);
  });

  it('a checkout by link reads the page once: the reader does the work of one read of it, JSON-LD parsed once', async () => {
    const user = await liveUser(c.svc, c.liveKey);
    const before = readerWork.units;
    readProductPage(html, `${store.origin}${PAGE}`);
    const oneRead = readerWork.units - before;
    const checkout = await cost(() =>
      user('POST', '/v1/checkouts', { product_url: `${store.origin}${PAGE}`, quantity: 1 }),
    );
    expect(checkout.pageFetches).toBe(1);
    expect(checkout.units).toBe(oneRead);
  });
});
