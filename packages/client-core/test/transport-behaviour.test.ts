import type { Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { beforeEach, describe, expect, it } from 'vitest';
import { APIUserAbortError, ApiError, ClientCore, ConnectionError, TimeoutError } from '../src/index.js';
import { TRANSPORT, useTransport } from './helpers.js';
import { useLoopback } from './loopback.js';

// What both transports must do alike over real HTTP on loopback (this file runs once per
// transport: vitest.config.ts, vitest.fetch.config.ts). Each case is something a user sees:
// headers as fetch gives them, bodies decoded as fetch decodes them, resets retried as before.

useTransport();

/** Requests seen per socket: a second one arrived on a reused, pooled socket. */
const requestsOn = new WeakMap<Socket, number>();
let resetNext = false;
/** Resolved once a slow body has started, so the test can act mid-body. */
let bodyStarted: () => void = () => {};
let closedMidBody: Promise<void> = Promise.resolve();

const json = { 'content-type': 'application/json' };

const { seen, base } = useLoopback((req, _body, res) => {
  const path = (req.url ?? '').replace(/^\/v1/, '').split('?')[0];
  requestsOn.set(req.socket, (requestsOn.get(req.socket) ?? 0) + 1);
  switch (path) {
    case '/flaky':
      // The server closed this pooled socket just as the client reused it: no answer at all.
      if (resetNext && (requestsOn.get(req.socket) ?? 0) > 1) {
        resetNext = false;
        req.socket.destroy();
        return;
      }
      return void res.writeHead(200, json).end('{"ok":true}');
    case '/repeated':
    case '/repeated-404':
      res.setHeader('set-cookie', ['a=1; Path=/', 'b=2; Path=/']);
      res.setHeader('x-multi', ['one', 'two']);
      res.setHeader('content-type', 'application/json');
      res.statusCode = path === '/repeated' ? 200 : 404;
      return void res.end('{"ok":true}');
    case '/no-content':
      return void res.writeHead(204, { 'service-request-id': 'req_204' }).end();
    case '/not-modified':
      return void res.writeHead(304, { etag: '"x"' }).end();
    case '/not-utf8':
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end(Buffer.from([0xef, 0xbb, 0xbf, 0x63, 0x61, 0x66, 0xe9]));
    case '/gzip':
    case '/deflate':
    case '/br': {
      const raw = Buffer.from('{"packed":true}');
      const packed =
        path === '/gzip' ? gzipSync(raw) : path === '/deflate' ? deflateSync(raw) : brotliCompressSync(raw);
      res.writeHead(200, { ...json, 'content-encoding': path.slice(1) });
      return void res.end(packed);
    }
    case '/unknown-coding':
      // Not a coding either transport knows (and a name an object literal would find on Object).
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'toString' });
      return void res.end('as sent');
    case '/many-codings':
      res.writeHead(200, {
        'content-type': 'text/plain',
        'content-encoding': 'gzip, gzip, gzip, gzip, gzip, gzip',
      });
      return void res.end(gzipSync(gzipSync(gzipSync(gzipSync(gzipSync(gzipSync('deep')))))));
    case '/upgrade':
      // A switch of protocols nobody asked for (a hostile server, or a proxy confused about
      // websockets); the socket is left open, so only the client can end the call.
      return void req.socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n',
      );
    case '/slow-body':
      closedMidBody = new Promise((resolve) => res.on('close', () => resolve()));
      res.writeHead(200, json);
      res.write('{"partial":');
      bodyStarted();
      return; // the rest never comes
    default:
      return void res.writeHead(200, json).end('{"ok":true}');
  }
});

let delays: number[] = [];
beforeEach(() => {
  seen.length = 0;
  delays = [];
});

function core(options: { maxRetries?: number; timeoutMs?: number } = {}): ClientCore {
  return new ClientCore({
    baseUrl: base(),
    apiKey: 'svc_test_key',
    serviceClient: '@svc/test-client/1.2.3',
    sleep: async (ms) => void delays.push(ms),
    random: () => 0,
    ...options,
  });
}

describe(`the ${TRANSPORT} transport over loopback`, () => {
  it('a pooled keep-alive socket the server closed is a ConnectionError, retried like any other: GET, keyed POST, unkeyed PATCH', async () => {
    const client = core();
    for (const method of ['GET', 'POST', 'PATCH'] as const) {
      // Leaves pooled sockets that have served a request (fetch's pool may open a second one for
      // a call made just as the last one ended, so two calls).
      await client.request({ method: 'GET', path: '/ok' });
      await client.request({ method: 'GET', path: '/ok' });
      seen.length = 0;
      delays = [];
      resetNext = true;
      const body = method === 'GET' ? undefined : { a: 1 };
      await expect(client.request({ method, path: '/flaky', body })).resolves.toEqual({ ok: true });
      expect(seen.map((request) => request.method)).toEqual([method, method]);
      expect(delays).toEqual([500]);
      if (method === 'POST') {
        const [first, second] = seen.map((request) => request.headers['idempotency-key']);
        expect(first).toBeTruthy();
        expect(second).toBe(first);
      }
    }
  });

  it('with no retries left, the reset is a ConnectionError naming the URL', async () => {
    const client = core({ maxRetries: 0 });
    await client.request({ method: 'GET', path: '/ok' });
    await client.request({ method: 'GET', path: '/ok' });
    resetNext = true;
    const error = await client.request({ method: 'GET', path: '/flaky' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toContain(`GET ${base()}/flaky failed (`);
  });

  it('repeated headers come out as fetch gives them: joined by get, each cookie apart, on results and errors', async () => {
    const { response } = await core().request({ method: 'GET', path: '/repeated' }).withResponse();
    expect(response.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(response.headers.get('x-multi')).toBe('one, two');
    expect(response.headers.get('set-cookie')).toBe('a=1; Path=/, b=2; Path=/');
    expect(response.url).toBe(`${base()}/repeated`);
    expect(response.redirected).toBe(false);
    expect(await response.json()).toEqual({ ok: true });
    const error = (await core()
      .request({ method: 'GET', path: '/repeated-404' })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(404);
    expect(error.headers?.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(error.headers?.get('x-multi')).toBe('one, two');
  });

  it('a 204 has no data and a Response with no body; a 304 is an error, not retried', async () => {
    const result = await core().request({ method: 'DELETE', path: '/no-content' }).withResponse();
    expect(result.data).toBeUndefined();
    expect(result.requestId).toBe('req_204');
    expect(result.response.status).toBe(204);
    expect(result.response.body).toBeNull();
    const error = (await core()
      .request({ method: 'GET', path: '/not-modified' })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(304);
    expect(seen).toHaveLength(2);
  });

  it('a body that is not UTF-8 is decoded as response.text() would: BOM dropped, bad bytes replaced', async () => {
    await expect(core().request({ method: 'GET', path: '/not-utf8' })).resolves.toBe('caf\uFFFD');
  });

  it('a compressed answer (gzip, deflate, br) from a proxy is decoded; an unknown coding is read as sent', async () => {
    for (const path of ['/gzip', '/deflate', '/br']) {
      await expect(core().request({ method: 'GET', path })).resolves.toEqual({ packed: true });
    }
    await expect(core().request({ method: 'GET', path: '/unknown-coding' })).resolves.toBe('as sent');
  });

  it('more than five content codings are refused, as Node’s fetch refuses them', async () => {
    const error = await core({ maxRetries: 0 })
      .request({ method: 'GET', path: '/many-codings' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
  });

  it('sends the same headers and bodies as fetch, and no Accept-Encoding', async () => {
    const client = core();
    await client.request({ method: 'GET', path: '/echo' });
    await client.request({ method: 'POST', path: '/echo', body: { a: 1 } });
    await client.request({ method: 'POST', path: '/echo' });
    await client.request({ method: 'PUT', path: '/echo', body: new URLSearchParams({ a: '1', b: 'x y' }) });
    await client.request({ method: 'PUT', path: '/echo', body: new Uint8Array([1, 2, 3]) });
    const [get, post, bare, form, bytes] = seen;
    expect(get?.headers).toMatchObject({
      accept: 'application/json',
      authorization: 'Bearer svc_test_key',
      'service-client': '@svc/test-client/1.2.3',
    });
    expect(get?.headers['content-length']).toBeUndefined();
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.body.toString()).toBe('{"a":1}');
    expect(post?.headers['idempotency-key']).toBeTruthy();
    expect(bare?.headers['content-length']).toBe('0');
    expect(form?.headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
    expect(form?.body.toString()).toBe('a=1&b=x+y');
    expect(bytes?.headers['content-type']).toBeUndefined();
    expect([...(bytes?.body ?? [])]).toEqual([1, 2, 3]);
    if (TRANSPORT === 'node') {
      // fetch asks for gzip; svc never compresses, so the node transport asks for nothing.
      expect(get?.headers['accept-encoding']).toBeUndefined();
      expect(get?.headers['user-agent']).toBe(`@svc/test-client/1.2.3 node/${process.versions.node}`);
    }
  });

  it("a User-Agent of the caller's own is sent as given", async () => {
    const client = new ClientCore({
      baseUrl: base(),
      serviceClient: '@svc/test-client/1.2.3',
      defaultHeaders: { 'user-agent': 'my-app/2.0' },
    });
    await client.request({ method: 'GET', path: '/echo' });
    await client.request({ method: 'POST', path: '/echo', headers: { 'user-agent': 'my-call/3.0' } });
    expect(seen.map((request) => request.headers['user-agent'])).toEqual(['my-app/2.0', 'my-call/3.0']);
  });

  it("a caller's abort before the call sends nothing; during the body it ends the call and closes the socket", async () => {
    const early = new AbortController();
    early.abort(new Error('never mind'));
    await expect(core().request({ method: 'GET', path: '/ok', signal: early.signal })).rejects.toBeInstanceOf(
      APIUserAbortError,
    );
    expect(seen).toHaveLength(0);

    const started = new Promise<void>((resolve) => {
      bodyStarted = resolve;
    });
    const caller = new AbortController();
    const call = core().request({ method: 'GET', path: '/slow-body', signal: caller.signal });
    await started;
    caller.abort(new Error('stop'));
    const error = (await call.catch((e: unknown) => e)) as APIUserAbortError;
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error.cause as Error).message).toBe('stop');
    await closedMidBody; // would hang (test timeout) if the socket were left open
  });

  it('a 101 the client did not ask for is a ConnectionError at once, not a wait for the timeout', async () => {
    const error = await core({ maxRetries: 0, timeoutMs: 2_000 })
      .request({ method: 'GET', path: '/upgrade' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect((error as ConnectionError).message).toContain('bad upgrade');
  });

  it("a caller's Content-Length that is not the body's, or a Transfer-Encoding, is refused before anything is sent; nothing is left on the socket", async () => {
    const client = core({ maxRetries: 0, timeoutMs: 500 });
    await client.request({ method: 'GET', path: '/ok' });
    seen.length = 0;
    const body = { name: 'café' }; // 17 characters, 18 bytes
    const refused = [
      { 'content-length': String(JSON.stringify(body).length) },
      { 'content-length': '0' },
      { 'content-length': '40' },
      { 'transfer-encoding': 'chunked' },
    ];
    for (const headers of refused) {
      const error = await client
        .request({ method: 'POST', path: '/framed', body, headers })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
    }
    const length = String(Buffer.byteLength(JSON.stringify(body)));
    await client.request({ method: 'POST', path: '/framed', body, headers: { 'content-length': length } });
    await client.request({ method: 'GET', path: '/ok' });
    expect(seen.map((request) => [request.method, request.url, request.body.toString()])).toEqual([
      ['POST', '/v1/framed', JSON.stringify(body)],
      ['GET', '/v1/ok', ''],
    ]);
  });

  it("the connection stays the transport's: a caller's Upgrade, Expect or Keep-Alive is refused as fetch refuses it, a Host or an odd Connection dropped", async () => {
    const client = core({ maxRetries: 0, timeoutMs: 500 });
    const refused = [{ upgrade: 'websocket' }, { expect: '100-continue' }, { 'keep-alive': 'timeout=5' }];
    for (const headers of refused) {
      const error = await client.request({ method: 'GET', path: '/ok', headers }).catch((e: unknown) => e);
      expect(error, JSON.stringify(headers)).toBeInstanceOf(ConnectionError);
    }
    expect(seen).toHaveLength(0);
    await client.request({ method: 'GET', path: '/ok', headers: { host: 'elsewhere.example' } });
    await client.request({ method: 'GET', path: '/ok', headers: { connection: 'close' } });
    expect(seen.map((request) => request.headers.host)).toEqual([new URL(base()).host, new URL(base()).host]);
    expect(seen[1]?.headers.connection).toBe('close');
    // Another Connection is dropped, as Node 24's fetch drops it; Node 20's fetch refuses it.
    const upgrade = await client
      .request({ method: 'GET', path: '/ok', headers: { connection: 'upgrade' } })
      .then(
        () => 'sent',
        (e: unknown) => e,
      );
    if (upgrade === 'sent') expect(seen[2]?.headers.connection).toBe('keep-alive');
    else expect(process.env.SVC_CLIENT_TEST_TRANSPORT).toBe('fetch');
    if (process.env.SVC_CLIENT_TEST_TRANSPORT !== 'fetch') expect(upgrade).toBe('sent');
  });

  it('a timeout during the body is a TimeoutError and closes the socket', async () => {
    const error = await core({ maxRetries: 0, timeoutMs: 100 })
      .request({ method: 'GET', path: '/slow-body' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    await closedMidBody;
  });
});
