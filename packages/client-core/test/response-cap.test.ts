import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClientCore, DEFAULT_MAX_RESPONSE_BYTES, ResponseTooLargeError } from '../src/index.js';
import { useTransport } from './helpers.js';

useTransport();

// The threat: a compromised server, or a proxy in between, answers with an endless or huge body.
// Read without a cap, it is held in memory until the timeout. The client must stop at
// maxResponseBytes, close the connection, and not retry.

const CAP = 1024 * 1024;
const chunk = Buffer.alloc(64 * 1024, 'x');

/** Requests that reached the server, and a promise per request settled when its socket closed. */
let requests = 0;
let closed: Promise<void>[] = [];

function endless(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  const write = () => {
    if (res.destroyed) return;
    if (res.write(chunk)) setImmediate(write);
    else res.once('drain', write);
  };
  write();
}

const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  '/v1/endless': (_req, res) => endless(res, 200),
  '/v1/endless-error': (_req, res) => endless(res, 500),
  '/v1/huge-length': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(10 ** 12) });
    res.write(chunk); // then holds the rest back, as a slow proxy would
  },
  '/v1/gzip-bomb': (_req, res) => {
    const packed = gzipSync(Buffer.alloc(4 * CAP, ' '));
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
      'content-length': packed.length,
    });
    res.end(packed);
  },
  '/v1/at-cap': (_req, res) => {
    const body = `"${'y'.repeat(CAP - 2)}"`;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body); // chunked: counted as it arrives
  },
};

const server = createServer((req, res) => {
  requests++;
  closed.push(new Promise((resolve) => req.socket.once('close', () => resolve())));
  routes[req.url ?? '']?.(req, res);
});
let base = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
beforeEach(() => {
  requests = 0;
  closed = [];
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const core = (maxResponseBytes: number | undefined) =>
  new ClientCore({
    baseUrl: base,
    serviceClient: '@svc/test-client/1.2.3',
    maxResponseBytes,
    maxRetries: 2,
    // Long enough for the old client (no cap) to reach it and so fail with a TimeoutError.
    timeoutMs: 3_000,
    sleep: async () => {},
  });

async function tooLarge(path: string): Promise<ResponseTooLargeError> {
  const error = await core(CAP)
    .request({ method: 'GET', path })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ResponseTooLargeError);
  return error as ResponseTooLargeError;
}

describe('response byte cap', () => {
  it('an endless chunked body rejects once past the cap, names the option, is not retried, and its socket is closed', async () => {
    const error = await tooLarge('/endless');
    expect(error.status).toBe(200);
    expect(error.maxResponseBytes).toBe(CAP);
    expect(error.message).toContain(`GET ${base}/endless`);
    expect(error.message).toContain('raise maxResponseBytes in the client options');
    expect(requests).toBe(1);
    await Promise.all(closed); // would hang (test timeout) if the body were left open
  });

  it('an error status with an endless body is not retried as if transient either', async () => {
    const error = await tooLarge('/endless-error');
    expect(error.status).toBe(500);
    expect(requests).toBe(1);
    await Promise.all(closed);
  });

  it('a Content-Length over the cap rejects before reading, and the socket is closed', async () => {
    const error = await tooLarge('/huge-length');
    expect(error.message).toContain('its Content-Length is 1000000000000');
    expect(requests).toBe(1);
    await Promise.all(closed);
  });

  it('a Content-Length under the cap that lies is read only as far as it says: the rest is never buffered', async () => {
    // A raw socket, since node:http would not send more than the declared length. The answer
    // declares 11 bytes, then sends 4 × the cap more: the runtime's fetch ends the body at the
    // declared length (the client reads such a body in one call, trusting it), so the call gets
    // the 11 bytes and no more than that is ever handed to the client.
    const sockets: Socket[] = [];
    const liar = createTcpServer((socket) => {
      sockets.push(socket);
      socket.once('data', () => {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"ok":true}',
        );
        const junk = Buffer.alloc(64 * 1024, 'x');
        for (let i = 0; i < (4 * CAP) / junk.length; i++) socket.write(junk);
      });
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => liar.listen(0, '127.0.0.1', () => resolve()));
    try {
      const client = new ClientCore({
        baseUrl: `http://127.0.0.1:${(liar.address() as AddressInfo).port}/v1`,
        serviceClient: '@svc/test-client/1.2.3',
        maxResponseBytes: CAP,
        maxRetries: 0,
        timeoutMs: 3_000,
      });
      const result = await client.request<{ ok: boolean }>({ method: 'GET', path: '/liar' }).withResponse();
      expect(result.data).toEqual({ ok: true });
      expect((await result.response.arrayBuffer()).byteLength).toBe(11);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => liar.close(() => resolve()));
    }
  });

  it('a small compressed body that decodes past the cap is counted after decoding', async () => {
    const error = await tooLarge('/gzip-bomb');
    expect(error.message).toContain('more than that arrived');
    expect(requests).toBe(1);
  });

  it('a body of exactly the cap is read whole', async () => {
    const data = await core(CAP).request<string>({ method: 'GET', path: '/at-cap' });
    expect(data).toHaveLength(CAP - 2);
  });

  it('defaults to 32 MiB and refuses a cap that is not a whole number of bytes', () => {
    expect(core(undefined).config.maxResponseBytes).toBe(DEFAULT_MAX_RESPONSE_BYTES);
    expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(32 * 1024 * 1024);
    expect(() => core(0)).toThrow(/maxResponseBytes must be a whole number of bytes > 0, got 0/);
    expect(() => core(1.5)).toThrow(TypeError);
  });
});
