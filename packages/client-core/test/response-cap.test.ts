import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ClientCore, DEFAULT_MAX_RESPONSE_BYTES, ResponseTooLargeError } from '../src/index.js';

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
