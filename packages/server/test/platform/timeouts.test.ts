import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBody } from '../../src/platform/http/errors-middleware.js';
import { DEFAULT_TIMEOUTS, type Listening, listen } from '../../src/platform/service.js';
import { startTestService, type TestService } from '../helpers/start.js';

/** Writes `bytes` and returns everything the server sends until it closes the connection. */
function sendAndWaitForClose(url: string, request: string): Promise<string> {
  const { hostname, port, host } = new URL(url);
  const bytes = request.replace('Host: x', `Host: ${host}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let received = '';
    socket.on('data', (c) => {
      received += c.toString('latin1');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
  });
}

/** A raw answer carries the error shape every client parses, with its request id in the header. */
function expectDocumentedError(raw: string, code: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const parsed = ErrorBody.parse(JSON.parse(body));
  expect(parsed.error.code).toBe(code);
  expect(head.toLowerCase()).toContain(`service-request-id: ${parsed.error.request_id.toLowerCase()}`);
  expect(head.toLowerCase()).toContain('content-type: application/json');
}

describe.each(['content', 'commerce'] as const)('%s: a slow client cannot hold a connection', (name) => {
  let svc: TestService;
  let server: Listening;
  beforeAll(async () => {
    svc = await startTestService(name);
    // The same service, on a second listener with short timeouts, so the test does not wait long.
    server = await listen(svc.handle, '127.0.0.1', 0, {
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
      keepAliveTimeoutMs: 200,
      checkEveryMs: 50,
    });
  });
  afterAll(async () => {
    server.server.close();
    server.server.closeAllConnections();
    await svc.close();
  });

  it('listens with the documented timeouts by default (docs/operations.md)', async () => {
    const plain = await listen(svc.handle, '127.0.0.1', 0);
    const { headersTimeout, requestTimeout, keepAliveTimeout } = plain.server;
    plain.server.close();
    expect(DEFAULT_TIMEOUTS).toEqual({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 300_000,
      keepAliveTimeoutMs: 5_000,
      checkEveryMs: 5_000,
    });
    expect({ headersTimeout, requestTimeout, keepAliveTimeout }).toEqual({
      headersTimeout: 20_000,
      requestTimeout: 300_000,
      keepAliveTimeout: 5_000,
    });
  });

  it('answers 408 and closes when the headers never finish', async () => {
    const got = await sendAndWaitForClose(server.url, 'GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(got).toMatch(/^HTTP\/1\.1 408 /);
    expectDocumentedError(got, 'REQUEST_TIMEOUT');
  });

  it('answers headers over 16 KiB with 431 in the documented error shape, not a bare status line', async () => {
    const got = await sendAndWaitForClose(
      server.url,
      `GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
    );
    expect(got).toMatch(/^HTTP\/1\.1 431 /);
    expectDocumentedError(got, 'HEADERS_TOO_LARGE');
  });

  it('answers a request that is not HTTP with 400 in the documented error shape', async () => {
    const got = await sendAndWaitForClose(server.url, 'HELLO THERE\r\n\r\n');
    expect(got).toMatch(/^HTTP\/1\.1 400 /);
    expectDocumentedError(got, 'INVALID_REQUEST');
  });

  it('answers 408 and closes when the body never finishes', async () => {
    const got = await sendAndWaitForClose(
      server.url,
      'POST /v1/zz HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
    );
    expect(got).toMatch(/^HTTP\/1\.1 408 /);
    expectDocumentedError(got, 'REQUEST_TIMEOUT');
  });

  it('closes an idle keep-alive connection', async () => {
    const got = await sendAndWaitForClose(server.url, 'GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n');
    // Resolving at all means the server closed the connection it was keeping alive.
    expect(got).toMatch(/^HTTP\/1\.1 200 /);
  });
});
