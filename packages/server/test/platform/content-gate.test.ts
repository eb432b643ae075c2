import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** Raw request so the test controls the Host header, which fetch does not allow. */
function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, method, headers }, (res) => {
      let data = '';
      res.on('data', (c) => {
        data += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const rawGet = (url: string, path: string, headers: Record<string, string>) =>
  rawRequest(url, 'GET', path, headers);

describe('content local-only gate', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  it('lets a local request through', async () => {
    const res = await api(svc.url, 'GET', '/v1/api-keys');
    expect(res.status).toBe(200);
  });

  it.each([
    ['a public Host', { host: 'svc.example.com' }],
    ['a spoofed Host with a port', { host: 'attacker.test:3000' }],
    ['X-Forwarded-For', { 'x-forwarded-for': '203.0.113.7' }],
    ['Forwarded', { forwarded: 'for=203.0.113.7' }],
    ['X-Real-IP', { 'x-real-ip': '203.0.113.7' }],
  ])('refuses a request with %s', async (_label, headers) => {
    const res = await rawGet(svc.url, '/v1/api-keys', headers);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('LOCAL_ONLY');
  });

  it('keeps /health reachable from a tunnel', async () => {
    const res = await rawGet(svc.url, '/health', {
      host: 'tunnel.example.com',
      'x-forwarded-for': '203.0.113.7',
    });
    expect(res.status).toBe(200);
  });

  it('refuses a cross-origin browser request (CSRF)', async () => {
    const res = await api(svc.url, 'POST', '/v1/api-keys', {
      body: { name: 'csrf', scopes: ['read'] },
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('CROSS_ORIGIN_REQUEST');
    const list = await api(svc.url, 'GET', '/v1/api-keys');
    expect(list.body.api_keys.map((k: { name: string }) => k.name)).not.toContain('csrf');
  });

  it('accepts a same-origin browser request', async () => {
    const origin = svc.url;
    const res = await api(svc.url, 'POST', '/v1/api-keys', {
      body: { name: 'ok', scopes: ['read'] },
      headers: { origin },
    });
    expect(res.status).toBe(201);
  });

  it('keeps field descriptions in the OpenAPI document', async () => {
    const doc = await api(svc.url, 'GET', '/v1/openapi.json');
    expect(doc.body.components.schemas.ApiKey.properties.prefix.description).toMatch(/first 12 characters/);
  });

  it('turns the gate off with SERVICE_PUBLIC_API=all, for the Host of CONTENT_PUBLIC_URL and loopback only', async () => {
    const open = await startTestService('content', {
      config: { localOnly: false, content: { port: 3000, publicUrl: 'https://svc.example.com' } },
    });
    try {
      for (const host of ['svc.example.com', 'SVC.example.com:443', 'localhost:3000', '127.0.0.1']) {
        const res = await rawGet(open.url, '/v1/api-keys', { host, 'x-forwarded-for': '203.0.113.7' });
        expect(res.status, host).toBe(200);
      }
      // DNS rebinding: a page on rebound.example, whose name now resolves to this server, sends an
      // Origin that matches its own Host. The Host is not the one the server answers to.
      const rebound = await rawRequest(
        open.url,
        'POST',
        '/v1/api-keys',
        {
          host: 'rebound.example:8080',
          origin: 'http://rebound.example:8080',
          'content-type': 'application/json',
        },
        JSON.stringify({ name: 'stolen', scopes: ['read'] }),
      );
      expect(rebound.status).toBe(403);
      expect(rebound.body.error).toMatchObject({ code: 'HOST_NOT_ALLOWED', request_id: expect.any(String) });
      expect(rebound.body.error.message).toContain('svc.example.com');
      for (const host of ['svc.example.com.rebound.example', 'svc.example.com:8443', 'evil.example']) {
        const res = await rawGet(open.url, '/v1/api-keys', { host });
        expect(res.status, host).toBe(403);
        expect(res.body.error.code, host).toBe('HOST_NOT_ALLOWED');
      }
      // Nothing was written by the refused request.
      expect((await api(open.url, 'GET', '/v1/api-keys')).body.api_keys).toEqual([]);
    } finally {
      await open.close();
    }
  });

  it('with SERVICE_PUBLIC_API=all and no CONTENT_PUBLIC_URL answers on loopback names only, and says what to set', async () => {
    const open = await startTestService('content', { config: { localOnly: false } });
    try {
      expect((await rawGet(open.url, '/v1/api-keys', { host: 'localhost' })).status).toBe(200);
      const res = await rawGet(open.url, '/v1/api-keys', { host: 'rebound.example' });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toContain('CONTENT_PUBLIC_URL');
    } finally {
      await open.close();
    }
  });
});
