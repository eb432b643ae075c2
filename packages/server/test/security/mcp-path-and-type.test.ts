import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import { startTestService, type TestService } from '../helpers/start.js';

/**
 * `/mcp` is matched by its own middleware (no express Router since issue 20's seventh pass) and
 * its plain `application/json` is recognised without type-is's parse. An outsider's spellings of
 * the path and of the Content-Type must land exactly where the Router and `req.is` sent them:
 * the path case-insensitive with one optional trailing slash, nothing longer or encoded; the type
 * by its media type whatever its case or parameters, and never a look-alike.
 */
describe('/mcp: spellings of the path and the Content-Type', () => {
  let svc: TestService;
  let key: string;
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
  beforeAll(async () => {
    svc = await startTestService('content');
    key = (await makeKey(svc, ['read'])).key;
  });
  afterAll(() => svc?.close());

  it('answers the path in any case, with or without one trailing slash', async () => {
    for (const path of ['/mcp', '/MCP', '/Mcp', '/mcp/', '/MCP/']) {
      const res = await rawMcp(svc, { key, path, body: ping });
      expect(res.status, path).toBe(200);
      expect(res.body, path).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    }
  });

  it('leaves longer, doubled-slash and percent-encoded paths to the REST 404', async () => {
    for (const path of ['/mcp/x', '/mcpx', '/mcp//', '/%6Dcp', '/mc%70', '/mcp%2F', '/v1/mcp']) {
      const res = await rawMcp(svc, { key, path, body: ping });
      expect(res.status, path).toBe(404);
      expect(res.body?.jsonrpc, path).toBeUndefined();
    }
  });

  it('takes application/json in any case and with parameters, refuses look-alikes with 415', async () => {
    for (const type of ['application/json', 'Application/JSON', 'application/json; charset=utf-8']) {
      const res = await rawMcp(svc, { key, headers: { 'content-type': type }, body: ping });
      expect(res.status, type).toBe(200);
    }
    for (const type of [
      'application/jsonx',
      'application/json-seq',
      'text/json ',
      'application/x-www-form-urlencoded',
    ]) {
      const res = await rawMcp(svc, { key, headers: { 'content-type': type }, body: ping });
      expect(res.status, type).toBe(415);
      expect(res.body.error.message, type).toContain('application/json');
    }
  });

  it('an empty body of the right type is an invalid request, not a crash or a 415', async () => {
    const res = await rawMcp(svc, { key, body: '' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32600);
  });
});
