// What an unexpected failure on the MCP endpoint gets, over real HTTP: the endpoint's own steps
// (the key lookup, sync or not) answer 500 with a JSON-RPC body; a failure inside a method
// answers that request's JSON-RPC internal error. Issue 20 folded the wrappers that caught these
// into the functions themselves (router.ts handler, engine.ts answer) and made the key lookup
// answer without a promise from the cache: a failure thrown at once must be caught as one that
// rejects later.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/platform/logger.js';
import { startTestService, type TestService } from '../helpers/start.js';
import { ctxOf, listAgentsCall, makeKey, rawMcp } from './mcp-helpers.js';

const lines: Record<string, unknown>[] = [];
let svc: TestService;

beforeAll(async () => {
  const logger = createLogger({
    level: 'error',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  svc = await startTestService('content', { logger });
});
afterAll(() => svc?.close());
afterEach(() => {
  vi.restoreAllMocks();
  lines.length = 0;
});

async function expectServerError(res: Awaited<ReturnType<typeof listAgentsCall>>) {
  expect(res.status, JSON.stringify(res.body)).toBe(500);
  expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
  expect(res.body.error.message).toContain('Quote the Service-Request-Id');
  expect(lines.map((l) => l.msg)).toContain('MCP request failed');
}

describe('MCP unexpected failures', () => {
  it('a key lookup that rejects (a key not cached yet) is answered 500 with a JSON-RPC body', async () => {
    const { key } = await makeKey(svc, ['read']);
    vi.spyOn(ctxOf(svc).stores.apiKeys, 'findActiveByHash').mockRejectedValue(new Error('database gone'));
    await expectServerError(await listAgentsCall(svc, key));
  });

  it('a key lookup that throws at once (the cache, read without a promise) is answered the same', async () => {
    const { key } = await makeKey(svc, ['read']);
    expect((await listAgentsCall(svc, key)).status).toBe(200);
    vi.spyOn(ctxOf(svc).keyCache, 'get').mockImplementation(() => {
      throw new Error('cache broken');
    });
    await expectServerError(await listAgentsCall(svc, key));
    vi.restoreAllMocks();
    // The endpoint is whole again once the fault is gone.
    expect((await listAgentsCall(svc, key)).status).toBe(200);
  });

  it('a failure inside a method answers that request with -32603, the rest of a batch unharmed', async () => {
    const { key } = await makeKey(svc, ['read']);
    vi.spyOn(ctxOf(svc).clock, 'sync').mockRejectedValue(new Error('clock unreadable'));
    const res = await rawMcp(svc, {
      key,
      body: [
        { jsonrpc: '2.0', id: 1, method: 'resources/list' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32603, message: 'Something went wrong on our side.' },
      },
      { jsonrpc: '2.0', id: 2, result: {} },
    ]);
    expect(lines.map((l) => l.msg)).toContain('MCP request failed');
  });
});
