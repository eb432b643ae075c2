import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PAGE_MAX_BYTES,
  readProductPage,
  readShopifyProductJson,
} from '../../src/commerce/merchants/product-page/index.js';
import { writerWork } from '../../src/platform/sliced/stringify.js';
import { readerWork, SLICE_UNITS } from '../../src/platform/sliced/work.js';
import { watchSlices } from '../helpers/slice-watch.js';
import { as, type Commerce, startCommerce } from './helpers.js';
import { type LocalStore, startLocalStore } from './long-tail-helpers.js';

/*
 * The worst pages the page cap allows, read at the cap and at half of it. A store's page is parsed
 * on the event loop both services share, so the reader's cost must grow linearly with the page:
 * each case counts the reader's steps (platform/sliced/work.ts) rather than timing them, and asserts
 * a fixed bound per byte, which a loop whose cost grows with the square of a count on the page
 * (tags, offers, prices, nesting) exceeds by orders of magnitude at these sizes.
 */

/** At most this many counted steps per byte of page. Today's worst case is about 1.5. */
const STEPS_PER_BYTE = 4;

/** `unit(i)` repeated until the page is `bytes` long (UTF-8 here is ASCII, so length is bytes). */
function fill(bytes: number, unit: (i: number) => string, head = '', tail = ''): string {
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const next = unit(i);
    if (size + next.length > bytes) break;
    parts.push(next);
    size += next.length;
  }
  parts.push(tail);
  return parts.join('');
}

const ldScript = (json: string) => `<script type="application/ld+json">${json}</script>`;
const PRODUCT_LD = ldScript(
  '{"@type":"Product","name":"Mug","sku":"MUG","offers":{"@type":"Offer","price":"19.99","priceCurrency":"USD","availability":"InStock"}}',
);

/** A JSON text of `bytes` that nests `open`/`close` as deep as it fits, around `inner`. */
function nested(bytes: number, open: string, close: string, inner: string, wrap = (s: string) => s): string {
  const depth = Math.floor((bytes - wrap(inner).length) / (open.length + close.length));
  return wrap(`${open.repeat(depth)}${inner}${close.repeat(depth)}`);
}

type Case = {
  name: string;
  page: (bytes: number) => string;
  url?: string;
  /** What the reader must answer: the offer's price in minor units, or the refusal's reason. */
  expected: number | string;
};

const CASES: Case[] = [
  {
    name: 'one meta key repeated (the 40,000-tag freeze)',
    page: (b) =>
      fill(
        b,
        () => '<meta property="og:price:amount" content="19.99">',
        '<meta property="og:price:currency" content="USD">',
      ),
    expected: 1999,
  },
  {
    name: 'a different meta price on every tag',
    page: (b) =>
      fill(
        b,
        (i) => `<meta property="og:price:amount" content="${i + 1}.00">`,
        '<meta property="og:price:currency" content="USD">',
      ),
    expected: 'AMBIGUOUS_PRICE',
  },
  {
    name: 'a distinct meta key on every tag',
    page: (b) => fill(b, (i) => `<meta name="k${i}" content="v">`, PRODUCT_LD),
    expected: 1999,
  },
  {
    name: 'unclosed tags nested as deep as the page allows, then close tags that match none',
    page: (b) => {
      const n = Math.floor((b - PRODUCT_LD.length) / 7);
      return `${PRODUCT_LD}${'<a>'.repeat(n)}${'</b>'.repeat(n)}`;
    },
    expected: 1999,
  },
  {
    name: 'one attribute value as long as the page',
    page: (b) => `${PRODUCT_LD}<meta name="description" content="${'x'.repeat(b - PRODUCT_LD.length - 40)}">`,
    expected: 1999,
  },
  {
    name: 'an attribute made of character references',
    page: (b) =>
      `${PRODUCT_LD}<meta name="description" content="${'&amp;'.repeat(Math.floor((b - PRODUCT_LD.length - 40) / 5))}">`,
    expected: 1999,
  },
  {
    name: 'a title as long as the page',
    page: (b) =>
      `${PRODUCT_LD}<title>${'word '.repeat(Math.floor((b - PRODUCT_LD.length - 20) / 5))}</title>`,
    expected: 1999,
  },
  {
    name: 'many JSON-LD scripts, each a product',
    page: (b) =>
      fill(b, (i) =>
        ldScript(`{"@type":"Product","name":"Item ${i}","offers":{"price":"${i}.00","priceCurrency":"USD"}}`),
      ),
    expected: 0,
  },
  {
    name: 'many JSON-LD scripts that are not JSON',
    page: (b) => fill(b, () => ldScript('{"@type":"Product",'), PRODUCT_LD),
    expected: 1999,
  },
  {
    name: 'many variants, each its own SKU and price',
    page: (b) =>
      ldScript(
        fill(
          b - 60,
          (i) => `${i ? ',' : ''}{"@type":"Offer","sku":"S${i}","price":"${i}.00","priceCurrency":"USD"}`,
          '{"@type":"Product","name":"Mug","offers":[',
          ']}',
        ),
      ),
    url: 'https://shop.test/p/mug?sku=S7',
    expected: 700,
  },
  {
    name: 'one variant stated many times, a different price each time',
    page: (b) =>
      ldScript(
        fill(
          b - 60,
          (i) => `${i ? ',' : ''}{"@type":"Offer","sku":"S","price":"${i}.00","priceCurrency":"USD"}`,
          '{"@type":"Product","name":"Mug","offers":[',
          ']}',
        ),
      ),
    expected: 'AMBIGUOUS_PRICE',
  },
  {
    name: 'one offer with a price specification per price',
    page: (b) =>
      ldScript(
        fill(
          b - 60,
          (i) => `${i ? ',' : ''}{"price":"${i}.00","priceCurrency":"USD"}`,
          '{"@type":"Product","name":"Mug","offers":{"priceSpecification":[',
          ']}}',
        ),
      ),
    expected: 'AMBIGUOUS_PRICE',
  },
  {
    name: 'JSON-LD arrays nested as deep as the page allows',
    page: (b) => nested(b, '[', ']', '{"@type":"Product"}', ldScript),
    expected: 'NO_PRICE',
  },
  {
    name: 'AggregateOffers nested inside each other',
    page: (b) =>
      nested(b, '{"@type":"AggregateOffer","offers":[', ']}', '{"price":"1.00","priceCurrency":"USD"}', (s) =>
        ldScript(`{"@type":"Product","name":"Mug","offers":${s}}`),
      ),
    expected: 'NO_PRICE',
  },
  {
    name: 'a name nested inside names, deeper than any store JSON is read',
    page: (b) =>
      nested(b, '{"name":', '}', '"Mug"', (s) =>
        ldScript(`{"@type":"Product","name":${s},"offers":{"price":"1.00","priceCurrency":"USD"}}`),
      ),
    expected: 'NO_PRICE',
  },
  {
    name: 'a price of a million zeros and a one',
    page: (b) =>
      ldScript(
        `{"@type":"Product","name":"Mug","offers":{"price":"1.${'0'.repeat(b - 200)}1","priceCurrency":"USD"}}`,
      ),
    expected: 'UNREADABLE_PRICE',
  },
  {
    name: 'an @type as long as the page',
    page: (b) =>
      `${PRODUCT_LD}${ldScript(`{"@type":"${'schema:'.repeat(Math.floor((b - 300) / 7))}Thing"}`)}`,
    expected: 1999,
  },
];

/** The reader's steps for one page, and what it answered. */
function measure(c: Case, bytes: number) {
  const html = c.page(bytes);
  expect(html.length).toBeLessThanOrEqual(bytes);
  expect(html.length).toBeGreaterThan(bytes * 0.9);
  readerWork.units = 0;
  const result = readProductPage(html, c.url ?? 'https://shop.test/p/mug');
  return { steps: readerWork.units, bytes: html.length, result };
}

describe('the product-page reader is linear in the page, up to the page cap', () => {
  it.each(CASES)('$name', (c) => {
    const half = measure(c, PAGE_MAX_BYTES / 2);
    const full = measure(c, PAGE_MAX_BYTES);
    for (const run of [half, full]) {
      const answer = run.result.ok ? run.result.offer.price.amount : run.result.reason;
      expect(answer).toBe(c.expected);
      expect(run.steps).toBeGreaterThan(0);
      expect(run.steps / run.bytes).toBeLessThanOrEqual(STEPS_PER_BYTE);
    }
    // Twice the page, about twice the steps (a square would be four times).
    expect(full.steps / half.steps).toBeLessThan(2.5);
  });

  it('reads Shopify product JSON with as many variants as the cap allows in linear steps', () => {
    const json = (bytes: number) =>
      fill(
        bytes,
        (i) =>
          `${i ? ',' : ''}{"id":${1000 + i},"sku":"S${i}","title":"V${i}","price":${100 + i},"available":true}`,
        '{"id":1,"title":"Coat","variants":[',
        ']}',
      );
    const run = (bytes: number) => {
      const text = json(bytes);
      readerWork.units = 0;
      const result = readShopifyProductJson(
        JSON.parse(text),
        'https://shop.test/products/coat?variant=1500',
        {
          currency: 'USD',
        },
      );
      return { steps: readerWork.units, bytes: text.length, result };
    };
    const half = run(PAGE_MAX_BYTES / 2);
    const full = run(PAGE_MAX_BYTES);
    for (const r of [half, full]) {
      expect(r.result.ok && r.result.offer.price).toEqual({ amount: 600, currency: 'USD' });
      expect(r.steps).toBeGreaterThan(0);
      expect(r.steps / r.bytes).toBeLessThanOrEqual(STEPS_PER_BYTE);
    }
    expect(full.steps / half.steps).toBeLessThan(2.5);
  });
});

describe('a live offer for a hostile 3 MiB product page, over HTTP', () => {
  let c: Commerce;
  let store: LocalStore;
  const atCap = (c: Case) => c.page(PAGE_MAX_BYTES - 200);
  const named = (name: string) => CASES.find((x) => x.name.startsWith(name)) as Case;
  beforeAll(async () => {
    c = await startCommerce({ storesAllowPrivate: true });
    store = await startLocalStore({
      '/p/meta': {
        body: `<!doctype html><html><head>${atCap(named('one meta key repeated'))}</head></html>`,
      },
      '/p/nested': {
        body: `<!doctype html><html><body>${atCap(named('unclosed tags nested'))}</body></html>`,
      },
      '/p/variants': { body: atCap(named('many variants')) },
    });
  });
  afterAll(async () => {
    await store.close();
    await c.close();
  });
  const offer = (path: string) =>
    as(c.svc, c.liveKey)('POST', '/v1/offers', { url: `${store.origin}${path}` });

  it('answers the right offer for 60,000 repeated meta tags, and the service keeps answering', async () => {
    const res = await offer('/p/meta');
    expect(res.status).toBe(201);
    expect(res.body.price).toEqual({ amount: 1999, currency: 'USD' });
    const health = await as(c.svc, null)('GET', '/v1/health');
    expect(health.status).toBe(200);
  });

  it('answers the right offer behind 400,000 unclosed tags', async () => {
    const res = await offer('/p/nested');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Mug',
      price: { amount: 1999, currency: 'USD' },
      item_ref: 'MUG',
    });
  });

  it('picks the variant the URL names among 40,000', async () => {
    const res = await offer('/p/variants?sku=S31337');
    expect(res.status).toBe(201);
    expect(res.body.price).toEqual({ amount: 3133700, currency: 'USD' });
    expect(res.body.item_ref).toBe('S31337');
  });

  /*
   * The reader is linear, but 47,000 offers read in one call still held the event loop (and every
   * other request) for seconds. The server reads a page in slices of bounded work with a turn of
   * the loop between them (platform/sliced/work.ts): counted here, not timed. The one step that
   * cannot be cut, the JSON.parse of a block, is at most the page; the rest stays within a slice
   * and the few units past the checkpoint that ends it.
   */
  it.each([
    ['/p/meta', 0],
    ['/p/nested', PRODUCT_LD.length],
    ['/p/variants?sku=S31337', PAGE_MAX_BYTES],
  ])('reads %s in slices of bounded work, giving the event loop a turn between them', async (path, parse) => {
    const slices = watchSlices();
    const before = readerWork.units;
    const res = await offer(path);
    expect(res.status).toBe(201);
    const units = readerWork.units - before;
    // About one pause per slice's worth of work: never one long call.
    expect(slices.yields).toBeGreaterThanOrEqual(Math.floor((units - parse) / SLICE_UNITS / 2));
    expect(slices.yields).toBeGreaterThan(50);
    expect(slices.longestSlice).toBeLessThanOrEqual(Math.max(parse, 2 * SLICE_UNITS));
  });

  /*
   * What comes after the reading was whole: the offer of 47,000 variants is 4.5 MB of JSON, and its
   * answer, stored row and idempotency record were each one JSON.stringify of it (80-280 ms on the
   * loaded machine), a GET or a replay one JSON.parse. Now the text is written once by the sliced
   * writer (platform/sliced/stringify.ts), which counts a unit per character, and read back by the
   * sliced parser. Counted, not timed: the old code had no sliced writer, and its GET and replay
   * counted no work at all.
   */
  it('writes the offer of 47,000 variants once, in slices, and answers, stores and replays that same JSON', async () => {
    const url = `${store.origin}/p/variants?sku=S31337`;
    const counted = async <T>(work: () => Promise<T>) => {
      const slices = watchSlices();
      const start = readerWork.units;
      const wrote = writerWork.chars;
      const out = await work();
      return { out, units: readerWork.units - start, written: writerWork.chars - wrote, slices };
    };
    const post = () =>
      fetch(`${c.svc.url}/v1/offers`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${c.liveKey}`,
          'content-type': 'application/json',
          'idempotency-key': 'big-offer',
        },
        body: JSON.stringify({ url }),
      });

    const created = await counted(async () => {
      const res = await post();
      return { status: res.status, text: await res.text() };
    });
    const text = created.out.text;
    expect(created.out.status).toBe(201);
    const body = JSON.parse(text);
    expect(body.variants.length).toBeGreaterThan(40_000);
    // Byte for byte what JSON.stringify makes of the offer, as before.
    expect(text).toBe(JSON.stringify(body));
    // The answer's text written once (not once per use), in bounded slices with the page's reading.
    expect(created.written).toBe(text.length);
    expect(created.slices.yields).toBeGreaterThanOrEqual(Math.floor(created.units / SLICE_UNITS / 2));
    expect(created.slices.longestSlice).toBeLessThanOrEqual(2 * SLICE_UNITS);

    const row = await c.handle.db.get<{ data: string }>('SELECT data FROM offers WHERE id = ?', [body.id]);
    expect(row?.data).toBe(text);
    const kept = await c.handle.db.get<{ response_body: string }>(
      'SELECT response_body FROM idempotency_keys WHERE key = ?',
      ['big-offer'],
    );
    expect(kept?.response_body).toBe(text);

    // A replay and a GET decode the stored text in slices and answer with that text.
    const replay = await counted(async () => {
      const res = await post();
      return { replayed: res.headers.get('idempotent-replayed'), text: await res.text() };
    });
    const got = await counted(async () => {
      const res = await fetch(`${c.svc.url}/v1/offers/${body.id}`, {
        headers: { authorization: `Bearer ${c.liveKey}` },
      });
      return await res.text();
    });
    expect(replay.out).toEqual({ replayed: 'true', text });
    expect(got.out).toBe(text);
    for (const read of [replay, got]) {
      expect(read.written).toBe(0);
      expect(read.units).toBeGreaterThanOrEqual(text.length);
      expect(read.slices.yields).toBeGreaterThan(50);
      expect(read.slices.longestSlice).toBeLessThanOrEqual(2 * SLICE_UNITS);
    }
  });

  it("reads a Shopify store's product JSON of 40,000 variants in slices too", async () => {
    const variants = fill(
      PAGE_MAX_BYTES - 200,
      (i) =>
        `${i ? ',' : ''}{"id":${1000 + i},"sku":"S${i}","title":"V${i}","price":${100 + i},"available":true}`,
      '{"id":1,"title":"Coat","variants":[',
      ']}',
    );
    const shopify = await startLocalStore({
      '/products/coat': {
        body: '<html><head><meta property="og:price:currency" content="USD"><title>Coat</title></head></html>',
      },
      '/products/coat.js': { type: 'application/javascript', body: variants },
    });
    try {
      const slices = watchSlices();
      const res = await as(c.svc, c.liveKey)('POST', '/v1/offers', {
        url: `${shopify.origin}/products/coat?variant=31337`,
      });
      expect(res.status).toBe(201);
      expect(res.body.price).toEqual({ amount: 30437, currency: 'USD' });
      expect(res.body.variants).toHaveLength(JSON.parse(variants).variants.length);
      expect(slices.yields).toBeGreaterThan(10);
      expect(slices.longestSlice).toBeLessThanOrEqual(2 * SLICE_UNITS);
    } finally {
      await shopify.close();
    }
  });

  it('refuses a page over the cap with a clean 4xx', async () => {
    const big = await startLocalStore({
      '/p/big': { body: atCap(named('one meta key repeated')).repeat(2) },
    });
    try {
      const res = await as(c.svc, c.liveKey)('POST', '/v1/offers', { url: `${big.origin}/p/big` });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('PRODUCT_PAGE_UNREADABLE');
    } finally {
      await big.close();
    }
  });
});
