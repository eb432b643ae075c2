import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, as, BUYER, type Commerce, PROTOCOL, sandboxUser, startCommerce } from './helpers.js';

/**
 * Offers and checkouts answer with a strong ETag, and a GET that sends it back in If-None-Match
 * is answered 304 without a body (RFC 9110 13.1.2: `*`, lists, weak comparison). Over HTTP,
 * against a started server; the answers are the kept bytes, never a new serialisation.
 */
describe('conditional reads of offers and checkouts', () => {
  let c: Commerce;
  let app: ReturnType<typeof as>;
  let user: ReturnType<typeof as>;
  let userToken: string;
  beforeAll(async () => {
    // No response validation: it serialises every answer itself, and the test counts serialisations.
    c = await startCommerce({ validateResponses: false });
    app = as(c.svc, c.sandboxKey);
    ({ call: user, userToken } = await sandboxUser(c.svc, c.sandboxKey));
  });
  afterAll(() => c.close());

  /** A GET with If-None-Match, read raw: status, ETag, Content-Type and the body's text. */
  async function conditional(path: string, ifNoneMatch?: string, token?: string) {
    const res = await fetch(`${c.svc.url}${path}`, {
      headers: {
        authorization: `Bearer ${c.sandboxKey}`,
        ...(token ? { 'service-user-token': token } : {}),
        ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }),
      },
    });
    return {
      status: res.status,
      etag: res.headers.get('etag'),
      type: res.headers.get('content-type'),
      text: await res.text(),
    };
  }

  /** JSON.stringify calls with an argument that mentions `id`, while `run` runs. */
  async function serialisationsOf(id: string, run: () => Promise<unknown>) {
    const original = JSON.stringify;
    let count = 0;
    JSON.stringify = ((value: unknown, ...rest: never[]) => {
      const text = original(value, ...rest);
      if (typeof text === 'string' && text.includes(id) && text.includes('"variants"')) count++;
      return text;
    }) as typeof JSON.stringify;
    try {
      await run();
    } finally {
      JSON.stringify = original;
    }
    return count;
  }

  it('an offer: ETag on 200; its tag, weak or in a list, or `*` gets a bodiless 304', async () => {
    const created = await app('POST', '/v1/offers', { url: `${PROTOCOL}/linen-throw-blanket` });
    expect(created.status).toBe(201);
    const path = `/v1/offers/${created.body.id}`;
    const first = await conditional(path);
    expect(first.status).toBe(200);
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(JSON.parse(first.text)).toEqual(created.body);
    const etag = first.etag as string;

    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, `W/"x",\t${etag} `, `"a,b",${etag}`, '*']) {
      const res = await conditional(path, header);
      expect({ header, status: res.status, text: res.text, type: res.type }).toEqual({
        header,
        status: 304,
        text: '',
        type: null,
      });
      // The 304 names the tag the 200 would have carried (RFC 9110 15.4.5); `*` alike.
      expect(res.etag, header).toBe(etag);
    }
    // Another tag, a tag unquoted, a list broken before or after the tag, an empty value: the full answer.
    for (const header of ['"nope"', etag.slice(1, -1), `nope ${etag}`, `${etag}x`, `${etag} "x"`, '']) {
      const res = await conditional(path, header);
      expect([header, res.status, res.etag, res.text]).toEqual([header, 200, etag, first.text]);
    }
  });

  it('an offer read conditionally is never serialised again: 304 and 200 send the kept bytes', async () => {
    const created = await app('POST', '/v1/offers', { url: `${PROTOCOL}/linen-throw-blanket` });
    const path = `/v1/offers/${created.body.id}`;
    const { etag } = await conditional(path);
    const counted = await serialisationsOf(created.body.id, async () => {
      expect((await conditional(path, etag as string)).status).toBe(304);
      expect((await conditional(path, '"other"')).status).toBe(200);
      expect((await conditional(path, '*')).status).toBe(304);
    });
    expect(counted).toBe(0);
  });

  it('a checkout: the tag changes when the checkout does, and the old one gets the new answer', async () => {
    const created = await user('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/desk-lamp`,
      quantity: 1,
    });
    expect(created.status).toBe(201);
    const path = `/v1/checkouts/${created.body.id}`;
    const get = (h?: string) => conditional(path, h, userToken);
    const before = await get();
    expect(before.status).toBe(200);
    expect((await get(before.etag as string)).status).toBe(304);

    const updated = await user('POST', `${path}/update`, { buyer: BUYER, shipping_address: ADDRESS });
    expect(updated.status).toBe(200);
    const after = await get(before.etag as string);
    expect(after.status).toBe(200);
    expect(after.etag).not.toBe(before.etag);
    expect(JSON.parse(after.text)).toEqual(updated.body);
    expect((await get(after.etag as string)).status).toBe(304);
  });
});
