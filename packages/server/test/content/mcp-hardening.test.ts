// /mcp against hostile or careless callers, over real HTTP: foreign origins (issue 23.1), one
// error rule for missing resources (23.2), wrong argument types (23.3), secrets in the call log
// (issue 18.14) and malformed resource URIs (18.15).
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.js';
import { createContentApp } from '../../src/content/app.js';
import { ManualClock } from '../../src/platform/clock.js';
import { randomIds } from '../../src/platform/ids.js';
import { listen } from '../../src/platform/service.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { connect, fails, makeKey, rawMcp } from './mcp-helpers.js';

let svc: TestService;
let key: string;

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
const read = (uri: string) => ({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri } });

beforeAll(async () => {
  svc = await startTestService('content', { config: { seed: 'demo' } });
  key = (await makeKey(svc, ['read', 'write'])).key;
});
afterAll(() => svc?.close());

/** node:http, because fetch will not send a Host of our choosing. */
function post(
  headers: Record<string, string>,
  body: unknown,
  on: { url: string; key: string } = { url: svc.url, key },
): Promise<{ status: number; body: any }> {
  const url = new URL(`${on.url}/mcp`);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: '/mcp',
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${on.key}`,
          'content-length': Buffer.byteLength(payload),
          ...headers,
        },
      },
      (res) => {
        let raw = '';
        res.on('data', (c) => {
          raw += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: raw ? JSON.parse(raw) : null }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('Origin (MCP 2025-11-25, transports, security warning 1)', () => {
  const host = () => new URL(svc.url).host;

  it.each([
    ['another site', () => ({ origin: 'http://evil.example.com' })],
    [
      'a rebound name whose Host matches',
      () => ({ host: 'evil.example.com', origin: 'http://evil.example.com' }),
    ],
    ['an opaque origin', () => ({ origin: 'null' })],
    [
      'an opaque origin the browser calls same-origin',
      () => ({ origin: 'null', 'sec-fetch-site': 'same-origin' }),
    ],
    ['a browser saying cross-site', () => ({ 'sec-fetch-site': 'cross-site' })],
    ['a scheme that is no web origin', () => ({ origin: `file://${host()}` })],
  ])('refuses %s with 403, a valid key notwithstanding', async (_label, headers) => {
    const res = await post(headers(), ping);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(res.body.error.message).toMatch(/^Cross-origin requests are refused/);
  });

  it("accepts no Origin (a program) and this server's own loopback origin", async () => {
    expect((await post({}, ping)).body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect((await post({ origin: `http://${host()}` }, ping)).status).toBe(200);
  });

  it('accepts the origin of CONTENT_PUBLIC_URL, and no other name', async () => {
    const pub = await startTestService('content', {
      config: { seed: 'none', content: { port: 0, publicUrl: 'https://svc.example.org' } },
    });
    try {
      const on = { url: pub.url, key: (await makeKey(pub, ['read'])).key };
      const behindProxy = { host: 'svc.example.org', origin: 'https://svc.example.org' };
      expect((await post(behindProxy, ping, on)).status).toBe(200);
      expect(
        (await post({ host: 'other.example.org', origin: 'https://other.example.org' }, ping, on)).status,
      ).toBe(403);
    } finally {
      await pub.close();
    }
  });
});

describe('a resource that does not exist: one rule, -32002 with the URI (revision 2025-11-25)', () => {
  it.each([
    ['a URI that matches no template', 'service://elsewhere'],
    ['a brand that does not exist', 'service://brands/brd_nope/memory'],
  ])('%s', async (_label, uri) => {
    const res = await rawMcp(svc, { key, body: read(uri) });
    expect(res.status).toBe(200);
    expect(res.body.error).toMatchObject({ code: -32002, data: { uri } });
  });

  it('a malformed percent-escape is invalid params (-32602), not an internal error', async () => {
    const uri = 'service://brands/%ZZ/memory';
    const res = await rawMcp(svc, { key, body: read(uri) });
    expect(res.body.error).toMatchObject({ code: -32602, data: { uri } });
    expect(res.body.error.message).toContain('malformed percent-escape');
  });
});

describe('wrong argument types', () => {
  it('names the expected type instead of calling the argument missing', async () => {
    const client = await connect(svc, key);
    try {
      const wrong = await fails(client, 'get_brand_memory', { brandId: 7 });
      expect(wrong).toContain("'brandId' must be a string, not a number");
      expect(wrong).not.toContain('required');
      expect(await fails(client, 'get_brand_memory', { brandId: null })).toContain(
        "'brandId' must be a string, not null",
      );
      expect(await fails(client, 'get_brand_memory', {})).toContain("'brandId' is required");
    } finally {
      await client.close();
    }
  });
});

describe('the call log keeps no secrets', () => {
  it('redacts secret-looking names at any depth, including near misses', async () => {
    const client = await connect(svc, key);
    try {
      await client.callTool({
        name: 'run_agent',
        arguments: {
          agentId: 'agent_nope',
          access_token: 'tok-top',
          inputs: {
            accessToken: 'tok-nested',
            client_secret: 'sec-nested',
            deeper: [{ refresh_token: 'tok-deep', Authorization: 'Bearer abc' }],
            note: 'svc_0123456789abcdef0123456789abcdef',
            max_tokens: 300,
          },
        },
      });
    } finally {
      await client.close();
    }
    const log = await api(svc.url, 'GET', '/v1/mcp-calls?tool=run_agent');
    const args = log.body.mcp_calls[0].args;
    const stored = JSON.stringify(args);
    for (const secret of ['tok-top', 'tok-nested', 'sec-nested', 'tok-deep', 'Bearer abc', 'svc_0123'])
      expect(stored).not.toContain(secret);
    expect(args).toMatchObject({
      agentId: 'agent_nope',
      access_token: '[redacted]',
      inputs: {
        accessToken: '[redacted]',
        client_secret: '[redacted]',
        deeper: [{ refresh_token: '[redacted]', Authorization: '[redacted]' }],
        max_tokens: 300,
      },
    });
  });
});

describe('what a malformed URI leaves in the log', () => {
  it('no error line and no stack trace, only the recorded call', async () => {
    const lines: { level: number; msg: string; err?: unknown }[] = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-mcp-log-'));
    const logger = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const handle = await createContentApp({
      config: testConfig({ dataDir }),
      clock: new ManualClock(),
      ids: randomIds,
      logger,
    });
    const listening = await listen(handle, '127.0.0.1', 0);
    try {
      const on = { url: listening.url } as TestService;
      const k = (await makeKey(on, ['read'])).key;
      const res = await rawMcp(on, { key: k, body: read('service://brands/%ZZ/memory') });
      expect(res.body.error.code).toBe(-32602);
      const loud = lines.filter((l) => l.level >= 50 || l.err !== undefined);
      expect(loud).toEqual([]);
      const log = await api(listening.url, 'GET', '/v1/mcp-calls');
      expect(log.body.mcp_calls[0]).toMatchObject({ tool: 'resources/read', error_code: 'INVALID_URI' });
    } finally {
      await listening.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
