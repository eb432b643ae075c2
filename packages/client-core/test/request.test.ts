import { getEventListeners } from 'node:events';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  APIUserAbortError,
  ApiError,
  ClientCore,
  encodePath,
  MissingUserTokenError,
  TimeoutError,
} from '../src/index.js';
import { BASE, makeCore, seen, server, useServer } from './helpers.js';

useServer();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request headers', () => {
  it('sends auth, user token, client id and default headers; per-request headers win or remove', async () => {
    server.use(http.get(`${BASE}/things`, () => HttpResponse.json({ ok: true })));
    const { core } = makeCore({ userToken: 'user-abc', defaultHeaders: { 'x-team': 'a', 'x-drop': 'me' } });

    await core.request({ method: 'GET', path: '/things', headers: { 'x-team': 'b', 'x-drop': null } });

    const headers = seen[0]?.headers;
    expect(headers?.get('authorization')).toBe('Bearer svc_test_key');
    expect(headers?.get('service-user-token')).toBe('user-abc');
    expect(headers?.get('service-client')).toBe('@svc/test-client/1.2.3');
    expect(headers?.get('accept')).toBe('application/json');
    expect(headers?.get('x-team')).toBe('b');
    expect(headers?.has('x-drop')).toBe(false);
    // Only POSTs get a generated key, and only bodies get a content type.
    expect(headers?.has('idempotency-key')).toBe(false);
    expect(headers?.has('content-type')).toBe(false);
  });

  it('sends no Authorization header without an API key', async () => {
    server.use(http.get(`${BASE}/health`, () => HttpResponse.json({ ok: true })));
    const { core } = makeCore({ apiKey: undefined });
    await core.request({ method: 'GET', path: 'health' });
    expect(seen[0]?.headers.has('authorization')).toBe(false);
  });
});

describe('url and query', () => {
  it('tolerates a trailing slash on baseUrl and a leading slash on path', async () => {
    server.use(http.get(`${BASE}/merchants`, () => HttpResponse.json({ ok: true })));
    const { core } = makeCore({ baseUrl: `${BASE}/` });
    await core.request({ method: 'GET', path: '/merchants' });
    await core.request({ method: 'GET', path: 'merchants' });
    expect(seen.map((r) => r.url)).toEqual([`${BASE}/merchants`, `${BASE}/merchants`]);
  });

  it('skips undefined and null, repeats arrays', async () => {
    server.use(http.get(`${BASE}/merchants`, () => HttpResponse.json({ ok: true })));
    const { core } = makeCore();
    await core.request({
      method: 'GET',
      path: '/merchants',
      query: { q: 'red shoes', limit: 10, after: undefined, none: null, id: ['a', 'b'], sandbox: true },
    });
    const url = new URL(seen[0]?.url ?? '');
    expect(url.search).toBe('?q=red+shoes&limit=10&id=a&id=b&sandbox=true');
  });

  it('encodePath escapes every interpolated segment', () => {
    expect(encodePath`/merchants/${'a/b?c'}/items/${7}`).toBe('/merchants/a%2Fb%3Fc/items/7');
  });

  it('rejects a baseUrl that is not an absolute URL', () => {
    expect(() => makeCore({ baseUrl: 'api.test/v1' })).toThrow(/absolute URL/);
  });

  // The specs give the service root without /v1 (MCP is at {base_url}/mcp); the REST routes
  // are under /v1. Every spelling must reach the same route, and none may double the /v1.
  it.each([
    ['https://api.test', 'https://api.test/v1/things'],
    ['https://api.test/', 'https://api.test/v1/things'],
    ['https://api.test/v1', 'https://api.test/v1/things'],
    ['https://api.test/v1/', 'https://api.test/v1/things'],
    ['https://api.test/v1//', 'https://api.test/v1/things'],
    ['https://api.test//', 'https://api.test/v1/things'],
    ['https://api.test/svc', 'https://api.test/svc/v1/things'],
    ['https://api.test/svc/v1/', 'https://api.test/svc/v1/things'],
  ])('baseUrl %s reaches %s', async (baseUrl, expected) => {
    server.use(http.get('https://api.test/*', () => HttpResponse.json({ ok: true })));
    const { core } = makeCore({ baseUrl });
    await core.request({ method: 'GET', path: '/things' });
    expect(seen.map((r) => r.url)).toEqual([expected]);
    expect(core.withOptions({ baseUrl }).config.baseUrl).toBe(expected.replace(/things$/, ''));
  });

  it.each([
    ['https://api.test/v1?x=1', /query or fragment/],
    ['https://api.test/v1#top', /query or fragment/],
    ['https://user:pass@api.test/v1', /credentials/],
    ['ftp://api.test/v1', /http\(s\)/],
    ['', /required/],
  ])('refuses baseUrl %j at construction', (baseUrl, message) => {
    expect(() => makeCore({ baseUrl })).toThrow(message);
  });

  it('encodePath refuses an empty, "." or ".." id, which would change the route', () => {
    for (const id of ['', '.', '..']) {
      expect(() => encodePath`/merchants/${id}`).toThrow(TypeError);
    }
    expect(encodePath`/merchants/${'...'}`).toBe('/merchants/...');
  });
});

describe('the fetch option', () => {
  it('is called for every attempt with the full URL, method, headers, body and a signal', async () => {
    const calls: Array<{ url: string; init: RequestInit }> = [];
    const fetch: typeof globalThis.fetch = async (url, init) => {
      calls.push({ url: String(url), init: init ?? {} });
      return calls.length === 1
        ? new Response('busy', { status: 503 })
        : Response.json({ id: 'ofr_1' }, { status: 201 });
    };
    const { core, delays } = makeCore({ fetch });
    const offer = await core.request({
      method: 'POST',
      path: '/offers',
      query: { expand: ['a', 'b'], skip: undefined },
      body: { url: 'https://shop.test/p' },
    });
    expect(offer).toEqual({ id: 'ofr_1' });
    expect(calls).toHaveLength(2);
    expect(delays).toHaveLength(1);
    for (const { url, init } of calls) {
      expect(url).toBe(`${BASE}/offers?expand=a&expand=b`);
      expect(init.method).toBe('POST');
      expect(init.body).toBe('{"url":"https://shop.test/p"}');
      expect(init.signal).toBeInstanceOf(AbortSignal);
      expect(new Headers(init.headers).get('authorization')).toBe('Bearer svc_test_key');
    }
    const keys = calls.map(({ init }) => new Headers(init.headers).get('idempotency-key'));
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toBe(keys[0]);
    expect(seen).toHaveLength(0);
  });

  it('a fetch that ignores its signal still times out, and the signal it got is aborted', async () => {
    const signals: AbortSignal[] = [];
    const fetch: typeof globalThis.fetch = (_url, init) => {
      signals.push(init?.signal as AbortSignal);
      return new Promise<Response>(() => {});
    };
    const { core } = makeCore({ fetch, maxRetries: 0, timeoutMs: 20 });
    const error = await core.request({ method: 'GET', path: '/hangs' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(signals).toHaveLength(1);
    expect(signals[0]?.aborted).toBe(true);

    const caller = new AbortController();
    const aborted = core.request({ method: 'GET', path: '/hangs', signal: caller.signal, timeoutMs: 60_000 });
    caller.abort(new Error('stop'));
    await expect(aborted).rejects.toBeInstanceOf(APIUserAbortError);
    expect(signals[1]?.aborted).toBe(true);
  });

  it("a settled call leaves no listener on the caller's signal, and a later abort touches no finished call", async () => {
    const signals: AbortSignal[] = [];
    const fetch: typeof globalThis.fetch = async (_url, init) => {
      signals.push(init?.signal as AbortSignal);
      return Response.json({ ok: true });
    };
    const failing: typeof globalThis.fetch = async () => {
      throw new TypeError('fetch failed');
    };
    const caller = new AbortController();
    const { core } = makeCore({ fetch, maxRetries: 0 });
    for (let i = 0; i < 3; i++) await core.request({ method: 'GET', path: '/ok', signal: caller.signal });
    const { core: down } = makeCore({ fetch: failing, maxRetries: 0 });
    await expect(down.request({ method: 'GET', path: '/down', signal: caller.signal })).rejects.toThrow(
      /Connection error/,
    );
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
    caller.abort(new Error('late'));
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false, false]);
  });

  it("one call's headers never reach the next, whatever a custom fetch does to them", async () => {
    const sent: Headers[] = [];
    const fetch: typeof globalThis.fetch = async (_url, init) => {
      const headers = init?.headers as Headers;
      sent.push(new Headers(headers));
      headers.set('x-added-by-fetch', 'yes');
      return Response.json({ ok: true });
    };
    const { core } = makeCore({ fetch });
    await core.request({ method: 'GET', path: '/a', headers: { 'x-once': '1' } });
    await core.request({ method: 'GET', path: '/b' });
    await core.request({ method: 'GET', path: '/c' });
    expect(sent[0]?.get('x-once')).toBe('1');
    for (const headers of sent.slice(1)) {
      expect(headers.has('x-once')).toBe(false);
      expect(headers.has('x-added-by-fetch')).toBe(false);
      expect(headers.get('authorization')).toBe('Bearer svc_test_key');
    }

    server.use(http.get(`${BASE}/plain`, () => HttpResponse.json({ ok: true })));
    const plain = makeCore().core;
    await plain.request({ method: 'GET', path: '/plain', headers: { 'x-once': '1' } });
    await plain.request({ method: 'GET', path: '/plain' });
    expect(seen.map((r) => r.headers.get('x-once'))).toEqual(['1', null]);
  });

  it('sends a streamed body half-duplex, once', async () => {
    let received = '';
    server.use(
      http.post(`${BASE}/upload`, async ({ request }) => {
        received = await request.text();
        return HttpResponse.json({ ok: true });
      }),
    );
    const { core } = makeCore();
    const body = new Blob(['streamed bytes']).stream();
    await core.request({ method: 'POST', path: '/upload', body });
    expect(received).toBe('streamed bytes');
  });
});

describe('bodies', () => {
  it('sends JSON with content-type application/json and an Idempotency-Key on POST', async () => {
    let received: unknown;
    server.use(
      http.post(`${BASE}/offers`, async ({ request }) => {
        received = await request.json();
        return HttpResponse.json({ id: 'ofr_1' }, { status: 201 });
      }),
    );
    const { core } = makeCore();
    const offer = await core.request<{ id: string }>({
      method: 'POST',
      path: '/offers',
      body: { url: 'https://shop.test/p/1' },
    });
    expect(offer).toEqual({ id: 'ofr_1' });
    expect(received).toEqual({ url: 'https://shop.test/p/1' });
    expect(seen[0]?.headers.get('content-type')).toBe('application/json');
    expect(seen[0]?.headers.get('idempotency-key')).toMatch(UUID);
  });

  it('sends a POST without a body without content-type', async () => {
    server.use(http.post(`${BASE}/checkouts/chk_1/confirm`, () => HttpResponse.json({ id: 'chk_1' })));
    const { core } = makeCore();
    await core.request({ method: 'POST', path: encodePath`/checkouts/${'chk_1'}/confirm` });
    expect(seen[0]?.headers.has('content-type')).toBe(false);
    expect(seen[0]?.headers.get('idempotency-key')).toMatch(UUID);
  });

  it('passes FormData through as multipart', async () => {
    let field: FormDataEntryValue | null = null;
    server.use(
      http.post(`${BASE}/brands/b1/media`, async ({ request }) => {
        field = (await request.formData()).get('caption');
        return HttpResponse.json({ id: 'med_1' });
      }),
    );
    const { core } = makeCore();
    const form = new FormData();
    form.set('caption', 'hello');
    form.set('file', new Blob(['png-bytes'], { type: 'image/png' }), 'a.png');
    await core.request({ method: 'POST', path: '/brands/b1/media', body: form });
    expect(seen[0]?.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect(field).toBe('hello');
  });

  it('resolves to undefined for an empty 204 and to text for non-JSON', async () => {
    server.use(
      http.delete(`${BASE}/brands/b1`, () => new HttpResponse(null, { status: 204 })),
      http.get(`${BASE}/robots.txt`, () => HttpResponse.text('User-agent: *')),
    );
    const { core } = makeCore();
    await expect(core.request({ method: 'DELETE', path: '/brands/b1' })).resolves.toBeUndefined();
    await expect(core.request({ method: 'GET', path: '/robots.txt' })).resolves.toBe('User-agent: *');
  });
});

describe('withResponse / asResponse', () => {
  it('exposes the response, its headers, the request id and the replay flag', async () => {
    server.use(
      http.post(`${BASE}/checkouts/chk_1/confirm`, () =>
        HttpResponse.json(
          { id: 'ord_1' },
          { headers: { 'Service-Request-Id': 'req_42', 'Idempotent-Replayed': 'true', 'X-Extra': 'yes' } },
        ),
      ),
    );
    const { core } = makeCore();
    const { data, response, requestId, idempotentReplayed } = await core
      .request<{ id: string }>({ method: 'POST', path: '/checkouts/chk_1/confirm' })
      .withResponse();
    expect(data).toEqual({ id: 'ord_1' });
    expect(requestId).toBe('req_42');
    expect(idempotentReplayed).toBe(true);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-extra')).toBe('yes');
    // The handed-out response is still readable.
    expect(await response.json()).toEqual({ id: 'ord_1' });
  });

  it('reports idempotentReplayed false on a first run, and asResponse gives the raw response', async () => {
    server.use(http.post(`${BASE}/offers`, () => HttpResponse.json({ id: 'ofr_1' })));
    const { core } = makeCore();
    const result = await core.request({ method: 'POST', path: '/offers', body: {} }).withResponse();
    expect(result.idempotentReplayed).toBe(false);
    expect(result.requestId).toBeNull();
    const raw = await core.request({ method: 'POST', path: '/offers', body: {} }).asResponse();
    expect(await raw.json()).toEqual({ id: 'ofr_1' });
  });

  it('hands out the body byte for byte, with the status line, url and headers, however often it is read', async () => {
    // Not UTF-8: a copy made from the decoded text would replace these bytes with U+FFFD.
    const bytes = new Uint8Array([0xff, 0x00, 0xfe, 0x80, 0x41]);
    server.use(
      http.get(`${BASE}/blob`, () =>
        HttpResponse.arrayBuffer(bytes.buffer, {
          status: 203,
          statusText: 'Non-Authoritative',
          headers: { 'content-type': 'application/octet-stream', 'Service-Request-Id': 'req_b' },
        }),
      ),
      http.delete(`${BASE}/blob`, () => new HttpResponse(null, { status: 204 })),
    );
    const { core } = makeCore();
    const result = await core.request({ method: 'GET', path: '/blob' }).withResponse();
    expect(result.response).toBe(result.response);
    expect(result.response.status).toBe(203);
    expect(result.response.statusText).toBe('Non-Authoritative');
    expect(result.response.url).toBe(`${BASE}/blob`);
    expect(result.response.headers.get('service-request-id')).toBe('req_b');
    expect(new Uint8Array(await result.response.arrayBuffer())).toEqual(bytes);
    // A spread (what callers do to reshape a result) carries the same response.
    expect({ ...result }.response).toBe(result.response);
    expect(Object.keys(result).sort()).toEqual(['data', 'idempotentReplayed', 'requestId', 'response']);

    const empty = await core.request({ method: 'DELETE', path: '/blob' }).asResponse();
    expect(empty.status).toBe(204);
    expect(empty.body).toBeNull();
  });

  it('one APIPromise makes one request whichever way it is consumed', async () => {
    server.use(http.get(`${BASE}/mode`, () => HttpResponse.json({ mode: 'sandbox' })));
    const { core } = makeCore();
    const promise = core.request<{ mode: string }>({ method: 'GET', path: '/mode' });
    const [data, withResponse] = await Promise.all([promise, promise.withResponse()]);
    expect(data).toEqual({ mode: 'sandbox' });
    expect(withResponse.data).toBe(data);
    expect(seen).toHaveLength(1);
  });

  it('_thenUnwrap reshapes data and keeps withResponse', async () => {
    server.use(http.get(`${BASE}/orders`, () => HttpResponse.json({ orders: [{ id: 'ord_1' }] })));
    const { core } = makeCore({ userToken: 'user-1' });
    const orders = core
      .request<{ orders: Array<{ id: string }> }>({ method: 'GET', path: '/orders' })
      ._thenUnwrap((body) => body.orders);
    expect(await orders).toEqual([{ id: 'ord_1' }]);
    const result = await orders.withResponse();
    expect(result.response.status).toBe(200);
    // As the core's own results: `response` is an own, enumerable property, so a spread keeps it.
    expect(Object.keys(result).sort()).toEqual(['data', 'idempotentReplayed', 'requestId', 'response']);
    expect({ ...result }.response).toBe(result.response);
  });

  it('a result read through a Proxy or an object made from it still gives its response', async () => {
    // Vue's reactive()/ref() hand the getter a Proxy as `this`; Object.create another object.
    // A getter over private fields throws "Cannot read private member" for both.
    server.use(http.get(`${BASE}/orders`, () => HttpResponse.json({ orders: [{ id: 'ord_1' }] })));
    const { core } = makeCore({ userToken: 'user-1' });
    const promise = core.request<{ orders: Array<{ id: string }> }>({ method: 'GET', path: '/orders' });
    const results = [
      await promise.withResponse(),
      await promise._thenUnwrap((body) => body.orders).withResponse(),
    ];
    for (const result of results) {
      for (const receiver of [new Proxy(result, {}), Object.create(result) as typeof result]) {
        expect(receiver.response.status).toBe(200);
        expect(receiver.response).toBe(result.response);
      }
      // The slot the getter reads is not a key a caller sees, spreads or serializes.
      expect(Object.keys(result).sort()).toEqual(['data', 'idempotentReplayed', 'requestId', 'response']);
      expect(Object.getOwnPropertySymbols({ ...result })).toEqual([]);
      expect(JSON.parse(JSON.stringify({ ...result, response: undefined }))).toEqual({
        data: result.data,
        idempotentReplayed: false,
        requestId: null,
      });
    }
  });
});

describe('user token', () => {
  it('rejects with MissingUserTokenError and sends nothing when the client has no user token', async () => {
    server.use(http.get(`${BASE}/orders`, () => HttpResponse.json({ orders: [] })));
    const { core } = makeCore();
    const error = await core
      .request({ method: 'GET', path: '/orders', requiresUserToken: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingUserTokenError);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).name).toBe('MissingUserTokenError');
    expect((error as Error).message).toContain('GET /orders');
    expect((error as Error).message).toContain('client.forUser(userToken)');
    expect(seen).toHaveLength(0);
  });

  it('withOptions derives a user-scoped copy and leaves the original alone', async () => {
    server.use(http.get(`${BASE}/orders`, () => HttpResponse.json({ orders: [] })));
    const { core } = makeCore();
    const forUser = core.withOptions({ userToken: 'user-xyz' });
    expect(forUser).toBeInstanceOf(ClientCore);
    await forUser.request({ method: 'GET', path: '/orders', requiresUserToken: true });
    expect(seen[0]?.headers.get('service-user-token')).toBe('user-xyz');
    expect(seen[0]?.headers.get('authorization')).toBe('Bearer svc_test_key');
    expect(core.config.userToken).toBeUndefined();
    expect(forUser.config.serviceClient).toBe('@svc/test-client/1.2.3');
  });
});
