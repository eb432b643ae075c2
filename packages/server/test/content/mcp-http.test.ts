// POST /mcp at the HTTP level: what the SDK client never sends, checked with plain fetch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeKey, rawMcp } from './mcp-helpers.js';

let svc: TestService;
let key: string;

const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };

beforeAll(async () => {
  svc = await startTestService('content', { config: { seed: 'demo' } });
  key = (await makeKey(svc, ['read'])).key;
});
afterAll(() => svc?.close());

describe('authentication', () => {
  it('no key: 401 with a bare Bearer challenge', async () => {
    const res = await rawMcp(svc, { body: ping });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: null,
      error: { message: expect.stringContaining('Missing') },
    });
  });

  it.each([
    ['malformed', 'Basic dXNlcjpwYXNz'],
    ['not a key', 'Bearer hello'],
    ['unknown', 'Bearer svc_00000000000000000000000000000000'],
  ])('%s credentials: 401 with error="invalid_token"', async (_label, authorization) => {
    const res = await rawMcp(svc, { headers: { authorization }, body: ping });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="svc", error="invalid_token"/);
  });

  it('is reachable through a tunnel (the local-only gate lets /mcp through)', async () => {
    const res = await rawMcp(svc, { key, headers: { 'x-forwarded-for': '203.0.113.7' }, body: ping });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(
      (await api(svc.url, 'GET', '/v1/brands', { headers: { 'x-forwarded-for': '203.0.113.7' } })).status,
    ).toBe(403);
  });
});

describe('the transport', () => {
  it.each(['GET', 'DELETE', 'PUT'])('%s is 405 with Allow: POST', async (method) => {
    const res = await rawMcp(svc, { method, key });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.body.error.message).toContain('POST only');
  });

  it('is stateless: initialize issues no session and negotiates the protocol version', async () => {
    const init = (protocolVersion: string) =>
      rawMcp(svc, {
        key,
        body: {
          jsonrpc: '2.0',
          id: 'init',
          method: 'initialize',
          params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        },
      });
    const res = await init('2025-06-18');
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.body.result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'svc-content' },
    });
    expect((await init('1999-01-01')).body.result.protocolVersion).toMatch(/^20\d\d-/);
  });

  it('answers in SSE when the client prefers an event stream', async () => {
    const res = await rawMcp(svc, { key, headers: { accept: 'text/event-stream' }, body: ping });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.raw).toBe(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} })}\n\n`,
    );
    const json = await rawMcp(svc, { key, headers: { accept: 'application/json' }, body: ping });
    expect(json.headers.get('content-type')).toContain('application/json');
    const refused = await rawMcp(svc, { key, headers: { accept: 'text/html' }, body: ping });
    expect(refused.status).toBe(406);
  });

  it('notifications get 202 and no body; batches get an array', async () => {
    const note = await rawMcp(svc, { key, body: { jsonrpc: '2.0', method: 'notifications/initialized' } });
    expect(note.status).toBe(202);
    expect(note.raw).toBe('');
    const batch = await rawMcp(svc, {
      key,
      body: [
        ping,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { ...ping, id: 2, method: 'tools/list' },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.map((r: { id: number }) => r.id)).toEqual([1, 2]);
    expect(batch.body[1].result.tools).toHaveLength(23);
  });

  it('refuses bodies that are not JSON-RPC, with JSON-RPC errors', async () => {
    const notJson = await rawMcp(svc, { key, body: '{nope' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe(-32700);
    const wrongType = await rawMcp(svc, { key, headers: { 'content-type': 'text/plain' }, body: 'ping' });
    expect(wrongType.status).toBe(415);
    const noVersion = await rawMcp(svc, { key, body: { id: 1, method: 'ping' } });
    expect(noVersion.status).toBe(400);
    expect(noVersion.body.error.code).toBe(-32600);
    const unknown = await rawMcp(svc, { key, body: { ...ping, method: 'logging/setLevel' } });
    expect(unknown.body.error.code).toBe(-32601);
    const badVersion = await rawMcp(svc, {
      key,
      headers: { 'mcp-protocol-version': '1999-01-01' },
      body: ping,
    });
    expect(badVersion.status).toBe(400);
  });
});
