import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_MAX_BYTES } from '../../src/commerce/merchants/product-page/index.js';
import { parseOutsideJsonSteps, WHOLE_PARSE_CHARS } from '../../src/platform/sliced/json.js';
import { readerWork, readSliced, SLICE_UNITS } from '../../src/platform/sliced/work.js';
import { watchSlices } from '../helpers/slice-watch.js';
import { as, type Commerce, startCommerce } from './helpers.js';
import { type LocalStore, startLocalStore } from './long-tail-helpers.js';

/*
 * Large JSON from a store (a JSON-LD block, Shopify's product JSON, a UCP answer) is parsed in
 * slices with a turn of the event loop between them (platform/sliced/json.ts). One JSON.parse of a 3 MiB
 * block held the loop 100-190 ms on the loaded machine. Counted here (pauses, the most work one
 * slice did), never timed.
 */

/** Items joined by commas inside `head`…`tail`, as many as fit in `bytes` (ASCII, so length is bytes). */
function fill(bytes: number, item: (i: number) => string, head: string, tail: string): string {
  const parts = [head];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const next = `${i ? ',' : ''}${item(i)}`;
    if (size + next.length > bytes) break;
    parts.push(next);
    size += next.length;
  }
  parts.push(tail);
  return parts.join('');
}

let slices = { yields: 0, longestSlice: 0 };
const parseSliced = (text: string) => {
  slices = watchSlices();
  return readSliced(parseOutsideJsonSteps(text));
};

describe('store JSON parsed in slices', () => {
  // Escapes, astral characters, a lone surrogate, `__proto__`, duplicate keys, odd numbers.
  const tricky =
    '{"__proto__":{"x":1},"a":1,"a":[true,false,null,-0,1e400,12345678901234567890,0.1,"\\ud83d\\ude00 é \\u0000 \\ud800 \\"q\\" \\\\"],"2":"two","1":"one"}';
  const large = fill(1024 * 1024, (i) => (i % 50 === 0 ? tricky : `{"sku":"S${i}","n":${i}.5}`), '[', ']');

  it('gives what JSON.parse gives, with a turn of the loop every few thousand characters', async () => {
    expect(large.length).toBeGreaterThan(WHOLE_PARSE_CHARS);
    const value = await parseSliced(large);
    expect(value).toEqual(JSON.parse(large));
    expect(JSON.stringify(value)).toBe(JSON.stringify(JSON.parse(large)));
    const first = (value as Record<string, unknown>[])[0] as Record<string, unknown>;
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(Object.keys(first)).toEqual(['1', '2', '__proto__', 'a']);
    expect(slices.yields).toBeGreaterThan(large.length / 4096 / 2);
    expect(slices.longestSlice).toBeLessThanOrEqual(2 * SLICE_UNITS);
  });

  it('refuses deep nesting at the 65th bracket, long before the end of the text', async () => {
    const deep = `${'['.repeat(1_500_000)}1${']'.repeat(1_500_000)}`;
    const before = readerWork.units;
    await expect(parseSliced(deep)).rejects.toThrow(/more than 64 levels/);
    expect(readerWork.units - before).toBeLessThanOrEqual(4096);
    expect(slices.yields).toBe(0);
  });

  it.each([
    ['cut short', large.slice(0, -1)],
    ['followed by more', `${large} []`],
    ['with a trailing comma', `${large.slice(0, -1)},]`],
    ['with a raw tab in a string', `${large.slice(0, -1)},"a\tb"]`],
  ])('refuses text that is not JSON (%s) with a SyntaxError, as JSON.parse does', async (_name, text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    await expect(parseSliced(text)).rejects.toThrow(SyntaxError);
  });
});

describe('a live offer from a store sending 3 MiB of JSON, over HTTP', () => {
  let c: Commerce;
  let store: LocalStore;
  const bytes = PAGE_MAX_BYTES - 200;
  const jsonLd = fill(
    bytes - 100,
    (i) => `{"@type":"Offer","sku":"S${i}","price":"${i}.00","priceCurrency":"USD"}`,
    '<script type="application/ld+json">{"@type":"Product","name":"Mug","offers":[',
    ']}</script>',
  );
  const shopify = fill(
    bytes,
    (i) => `{"id":${1000 + i},"sku":"S${i}","title":"V${i}","price":${100 + i},"available":true}`,
    '{"id":1,"title":"Coat","variants":[',
    ']}',
  );
  beforeAll(async () => {
    c = await startCommerce({ storesAllowPrivate: true });
    store = await startLocalStore({
      '/p/mug': { body: jsonLd },
      '/products/coat': {
        body: '<html><head><meta property="og:price:currency" content="USD"><title>Coat</title></head></html>',
      },
      '/products/coat.js': { type: 'application/javascript', body: shopify },
    });
  });
  afterAll(async () => {
    await store.close();
    await c.close();
  });
  const offer = (path: string) => {
    slices = watchSlices();
    return as(c.svc, c.liveKey)('POST', '/v1/offers', { url: `${store.origin}${path}` });
  };

  it('parses a 3 MiB JSON-LD block in slices: no slice does more than two slices of work', {
    timeout: 60_000,
  }, async () => {
    const res = await offer('/p/mug?sku=S31337');
    expect(res.status).toBe(201);
    expect(res.body.price).toEqual({ amount: 3133700, currency: 'USD' });
    // Before, the block's JSON.parse was one slice of 3 MiB worth of units.
    expect(slices.longestSlice).toBeLessThanOrEqual(2 * SLICE_UNITS);
    expect(slices.yields).toBeGreaterThan(jsonLd.length / 4096 / 2);
  });

  it("parses a Shopify store's 3 MiB product JSON in slices", { timeout: 60_000 }, async () => {
    const res = await offer('/products/coat?variant=31337');
    expect(res.status).toBe(201);
    expect(res.body.price).toEqual({ amount: 30437, currency: 'USD' });
    // Before, the JSON was parsed whole before the sliced read, which paused about 40 times.
    expect(slices.yields).toBeGreaterThan(shopify.length / 4096 / 2);
    expect(slices.longestSlice).toBeLessThanOrEqual(2 * SLICE_UNITS);
  });
});
