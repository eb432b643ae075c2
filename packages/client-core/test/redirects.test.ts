import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, ClientCore } from '../src/index.js';
import { useTransport } from './helpers.js';

useTransport();

// The threat: fetch follows redirects by default and, on a cross-origin one, drops only
// `Authorization`. A proxy or a compromised API server answering 307 to another origin would
// then receive the user's `Service-User-Token`. The client follows no redirect at all.

const elsewhere: IncomingMessage[] = [];
let other = '';
const otherOrigin = createServer((req, res) => {
  elsewhere.push(req);
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
const api: Server = createServer((req, res) => {
  const to = req.url?.endsWith('/same') ? '/v1/ok' : `${other}/v1/steal`;
  res.writeHead(req.url?.endsWith('/moved') ? 301 : 307, { location: to }).end();
});
let base = '';

const listen = (s: Server) =>
  new Promise<string>((resolve) =>
    s.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)),
  );

beforeAll(async () => {
  other = await listen(otherOrigin);
  base = `${await listen(api)}/v1`;
});
afterAll(async () => {
  for (const s of [api, otherOrigin]) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

const core = () =>
  new ClientCore({
    baseUrl: base,
    apiKey: 'svc_test_key',
    userToken: 'user-secret',
    serviceClient: '@svc/test-client/1.2.3',
    maxRetries: 2,
    sleep: async () => {},
  });

describe('redirects', () => {
  it('a redirect to another origin is not followed: nothing reaches it, and the error names where it pointed', async () => {
    const error = await core()
      .request({ method: 'GET', path: '/checkouts/chk_1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(307);
    expect((error as ApiError).message).toContain(`to ${other}/v1/steal was not followed`);
    expect((error as ApiError).message).toContain('Set baseURL');
    expect(elsewhere).toHaveLength(0);
  });

  it('a permanent redirect is not retried or followed either, even on the same origin', async () => {
    const moved = await core()
      .request({ method: 'POST', path: '/moved', body: { a: 1 } })
      .catch((e: unknown) => e);
    expect((moved as ApiError).status).toBe(301);
    const same = await core()
      .request({ method: 'GET', path: '/same' })
      .catch((e: unknown) => e);
    expect((same as ApiError).status).toBe(307);
    expect((same as ApiError).message).toContain('to /v1/ok was not followed');
    expect(elsewhere).toHaveLength(0);
  });
});
