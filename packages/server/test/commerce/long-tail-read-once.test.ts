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
  /**
   * The page with a description in its JSON-LD, its lines broken by `br`: a raw line break (which
   * JSON forbids in a string, and pages write anyway) or a space, the same length either way.
   * `lines` of 100 characters: 10 keep the block under the whole-parse size, 1,000 take it over.
   */
  const described = (br: string, lines: number) =>
    html.replace(
      '"name": "Canvas Tote",',
      `"name": "Canvas Tote", "description": "${Array(lines).fill('w'.repeat(99)).join(br)}",`,
    );
  const DESCRIBED = {
    '/products/raw': described('\n', 10),
    // Paths of one length: the link is in the answer, whose writing is counted too.
    '/products/spc': described(' ', 10),
    '/products/raw-long': described('\n', 1000),
    '/products/spc-long': described(' ', 1000),
  };
  let c: Commerce;
  let store: LocalStore;
  beforeAll(async () => {
    c = await startCommerce({ storesAllowPrivate: true });
    store = await startLocalStore({
      [PAGE]: { body: html },
      ...Object.fromEntries(Object.entries(DESCRIBED).map(([path, body]) => [path, { body }])),
    });
  });
  afterAll(async () => {
    await store.close();
    await c.close();
  });

  /** What one request cost: how often the store was asked for the page, and the reader's work units. */
  async function cost(request: () => Promise<{ status: number; body: unknown }>, page = PAGE) {
    store.hits.length = 0;
    const before = readerWork.units;
    const res = await request();
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { pageFetches: store.hits.filter((h) => h === page).length, units: readerWork.units - before };
  }
  const offer =
    (page = PAGE) =>
    () =>
      as(c.svc, c.liveKey)('POST', '/v1/offers', { url: `${store.origin}${page}` });

  it('the offer that makes a store join the catalog reads its page once, as later offers do', async () => {
    const joining = await cost(offer());
    const joined = await cost(offer());
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

  it('parses a JSON-LD block with raw line breaks in a string once: the work of the same block with spaces', async () => {
    for (const long of ['', '-long']) {
      const raw = await cost(offer(`/products/raw${long}`), `/products/raw${long}`);
      const spaced = await cost(offer(`/products/spc${long}`), `/products/spc${long}`);
      expect([raw.pageFetches, spaced.pageFetches]).toEqual([1, 1]);
      // The old reader parsed the short broken block, failed, and parsed it again with the breaks as
      // spaces (2,096 units more). The long one goes through the streaming parser, which read it once
      // before too; it holds the cleaning, done slice by slice, to the same single parse.
      expect(raw.units, `block ${long || 'short'}`).toBe(spaced.units);
    }
  });
});
