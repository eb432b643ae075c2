import { setMaxListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PER_ENDPOINT_CONCURRENCY } from '../../src/commerce/webhooks/dispatcher.js';
import { AppError } from '../../src/platform/errors.js';
import {
  BodyTooLargeError,
  checkPublicUrl,
  isBlockedAddress,
  publicFetch,
  publicStatus,
} from '../../src/platform/net/public-url.js';

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '[::1]',
    'not-an-ip',
  ])('blocks %s', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('allows public %s', (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

describe('checkPublicUrl', () => {
  const strict = { allowPrivate: false, requireHttps: true };

  it('accepts a public https URL', () => {
    expect(checkPublicUrl('https://hooks.example.com/svc', strict).hostname).toBe('hooks.example.com');
  });

  it.each([
    ['http://hooks.example.com/x', 'https'],
    ['https://localhost/x', 'internal'],
    ['https://printer.local/x', 'internal'],
    ['https://db.internal/x', 'internal'],
    ['https://intranet/x', 'public hostname'],
    ['https://127.0.0.1/x', 'private'],
    ['https://[::1]/x', 'private'],
    ['https://10.0.0.7/x', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'private'],
    ['https://100.64.1.1/x', 'private'],
    ['https://2130706433/x', 'private'],
    ['https://user:pass@hooks.example.com/x', 'credentials'],
    ['ftp://hooks.example.com/x', 'https'],
  ])('refuses %s', (url, why) => {
    try {
      checkPublicUrl(url, strict);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).code).toBe('URL_NOT_ALLOWED');
      expect((err as AppError).message.toLowerCase()).toContain(why);
    }
  });

  it('refuses something that is not a URL with INVALID_URL', () => {
    expect(() => checkPublicUrl('not a url', strict)).toThrow(
      expect.objectContaining({ code: 'INVALID_URL' }),
    );
  });

  it('lets loopback http through only when private addresses are allowed', () => {
    expect(
      checkPublicUrl('http://127.0.0.1:8080/hook', { allowPrivate: true, requireHttps: true }).port,
    ).toBe('8080');
  });
});

describe('publicFetch', () => {
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://127.0.0.1/elsewhere' }).end();
      } else if (req.url === '/big-declared') {
        res.writeHead(200, { 'content-length': String(64 * 1024) });
        res.end(Buffer.alloc(64 * 1024));
      } else if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.end(Buffer.alloc(64 * 1024));
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // A public-looking name that resolves to loopback: the DNS-rebinding case.
  const rebinding: typeof import('node:dns').lookup = ((_host: string, _opts: unknown, cb: any) =>
    cb(null, [{ address: '127.0.0.1', family: 4 }])) as any;

  it('refuses a name that resolves to a private address, at connect time', async () => {
    await expect(
      publicFetch(`http://rebind.example.com:${port}/`, {
        allowPrivate: false,
        timeoutMs: 2000,
        lookup: rebinding,
      }),
    ).rejects.toThrow();
  });

  it('reaches the same server when private addresses are allowed', async () => {
    const res = await publicFetch(`http://rebind.example.com:${port}/`, {
      allowPrivate: true,
      timeoutMs: 2000,
      lookup: rebinding,
    });
    expect(await res.text()).toBe('hello');
  });

  it('returns a redirect as it is, without following it', async () => {
    const res = await publicFetch(`http://127.0.0.1:${port}/redirect`, {
      allowPrivate: true,
      timeoutMs: 2000,
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://127.0.0.1/elsewhere');
  });

  it('stops a streamed body once it passes maxBytes', async () => {
    const res = await publicFetch(`http://127.0.0.1:${port}/big`, {
      allowPrivate: true,
      timeoutMs: 2000,
      maxBytes: 1024,
    });
    await expect(res.arrayBuffer()).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it('refuses a declared Content-Length over maxBytes before reading', async () => {
    await expect(
      publicFetch(`http://127.0.0.1:${port}/big-declared`, {
        allowPrivate: true,
        timeoutMs: 2000,
        maxBytes: 1024,
      }),
    ).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it('refuses a literal private IP before connecting', async () => {
    await expect(
      publicFetch(`http://127.0.0.1:${port}/`, { allowPrivate: false, timeoutMs: 2000 }),
    ).rejects.toThrow(/private/);
  });
});

/**
 * `publicStatus` (webhook deliveries) goes through undici's bare dispatch with a handler of its
 * own; these hold it to what `publicFetch` promises, over real HTTP. A request that ought to end
 * and does not fails by the test's own timeout, so no figure here is a timing.
 */
describe('publicStatus', () => {
  let server: Server;
  let port: number;
  /** Requests the server has let go (their connection closed), by path. */
  const closed: string[] = [];
  /** Connections the server has accepted, by the path of the first request on each. */
  const connectedFor: string[] = [];
  /** Requests the server has received, by path. */
  const arrived: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.on('close', () => closed.push(req.url ?? ''));
      const socket = req.socket as typeof req.socket & { counted?: boolean };
      arrived.push(req.url ?? '');
      if (!socket.counted) connectedFor.push(req.url ?? '');
      socket.counted = true;
      if (req.url === '/redirect') {
        res.writeHead(307, { location: 'http://127.0.0.1/elsewhere' }).end();
      } else if (req.url === '/endless') {
        // A body that never ends: only the byte cap can stop reading it.
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        const chunk = Buffer.alloc(16 * 1024);
        const more = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', more);
        };
        more();
      } else if (req.url === '/trickle') {
        // Headers at once, then a byte now and then, forever: only a deadline on the whole
        // exchange (not on each read) ends it.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(timer));
      } else if (req.url === '/hang') {
        req.resume();
      } else {
        req.resume();
        req.on('end', () => res.writeHead(202).end('ok'));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );

  const post = (path: string, more: Partial<Parameters<typeof publicStatus>[1]> = {}) =>
    publicStatus(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"id":"evt_1"}',
      allowPrivate: true,
      timeoutMs: 60_000,
      connections: PER_ENDPOINT_CONCURRENCY,
      ...more,
    });

  it('answers the status, and a 3xx as it is, without following it', async () => {
    expect(await post('/ok')).toBe(202);
    expect(await post('/redirect')).toBe(307);
  });

  it('keeps the status of an answer whose body passes maxBytes, and cuts it off there', async () => {
    expect(await post('/endless', { maxBytes: 1024 })).toBe(200);
  });

  it('ends an answer that trickles in at the deadline, keeping its status', async () => {
    expect(await post('/trickle', { timeoutMs: 300 })).toBe(200);
  });

  it('ends every request under a shared signal when it aborts, and lets their connections go', async () => {
    // Each request's own timeout is a minute: only the shared signal can end them within the test.
    const signal = AbortSignal.timeout(200);
    const sent = [post('/hang', { signal }), post('/hang', { signal }), post('/hang', { signal })];
    for (const r of sent) await expect(r).rejects.toMatchObject({ name: 'TimeoutError' });
    await new Promise<void>((resolve) => {
      const check = () =>
        closed.filter((p) => p === '/hang').length === 3 ? resolve() : setTimeout(check, 5);
      check();
    });
  });

  it('reuses at most PER_ENDPOINT_CONCURRENCY connections for 200 requests to one endpoint', async () => {
    // As many in flight as the pool's connections, the next sent as each answer arrives (as the
    // dispatcher sends, one connection per attempt in flight): an unbounded
    // pool opened a new connection whenever the one that had just answered was not yet free.
    let sent = 0;
    const sender = async () => {
      while (sent < 200) {
        sent += 1;
        expect(await post('/reuse')).toBe(202);
      }
    };
    await Promise.all(Array.from({ length: PER_ENDPOINT_CONCURRENCY }, sender));
    const opened = connectedFor.filter((p) => p === '/reuse').length;
    expect(opened).toBeGreaterThan(0);
    expect(opened).toBeLessThanOrEqual(PER_ENDPOINT_CONCURRENCY);
  });

  it('lets another endpoint on the same host through while one endpoint holds all its connections', async () => {
    const signal = AbortSignal.timeout(1_000);
    setMaxListeners(0, signal);
    const before = arrived.filter((p) => p === '/hang').length;
    const hanging = Array.from({ length: PER_ENDPOINT_CONCURRENCY }, () =>
      post('/hang', { signal }).catch((err: Error) => err.name),
    );
    // Every connection of '/hang' is taken; '/other' answers at once all the same.
    await new Promise<void>((resolve) => {
      const check = () =>
        arrived.filter((p) => p === '/hang').length >= before + PER_ENDPOINT_CONCURRENCY
          ? resolve()
          : setTimeout(check, 5);
      check();
    });
    expect(signal.aborted).toBe(false);
    expect(await post('/other')).toBe(202);
    expect(signal.aborted).toBe(false);
    expect(await Promise.all(hanging)).toEqual(Array(PER_ENDPOINT_CONCURRENCY).fill('TimeoutError'));
  });

  it('refuses a name that resolves to a private address, at connect time', async () => {
    const rebinding: typeof import('node:dns').lookup = ((_host: string, _opts: unknown, cb: any) =>
      cb(null, [{ address: '127.0.0.1', family: 4 }])) as any;
    await expect(
      publicStatus(`http://rebind.example.com:${port}/ok`, {
        method: 'POST',
        allowPrivate: false,
        timeoutMs: 2000,
        connections: 1,
        lookup: rebinding,
      }),
    ).rejects.toThrow(/private or reserved/);
  });
});
