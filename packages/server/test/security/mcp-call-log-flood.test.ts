// Tenth pass (outside attack on stop 31): a key that floods the MCP call log. Every tools/call
// that passes authentication is logged, refused ones (RATE_LIMITED, INVALID_ARGUMENTS) included,
// with the arguments as sent. A key holder sending a body near the 1 MiB limit per call therefore
// wrote about 1 MiB per call into the database, and up to MAX_PENDING (4,000) such entries
// waited in memory: gigabytes, from a key the rate limit had already refused.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import { MAX_LOGGED_ARGS_CHARS, MAX_LOGGED_MESSAGE_CHARS } from '../../src/content/services/mcp-calls.js';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

describe('a key that floods the MCP call log with large arguments', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'none', keyRateLimit: 2 } });
  });
  afterAll(() => svc?.close());

  const call = (key: string, name: string, args: unknown) =>
    rawMcp(svc, {
      key,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    });

  it('keeps each entry bounded, says what was cut, and still redacts what it keeps', async () => {
    const { key } = await makeKey(svc, ['read']);
    const big = 'x'.repeat(900_000);
    const codes: string[] = [];
    // Two admitted (invalid arguments), the rest refused by the rate limit: all are logged.
    for (let i = 0; i < 6; i++) {
      const res = await call(key, 'list_agents', { junk: big, token: 'sekret-token-value', i });
      expect(res.status).toBe(200);
      codes.push(/Error (\w+)/.exec(res.body.result.content[0].text)?.[1] ?? '');
    }
    expect(codes.slice(0, 2)).toEqual(['INVALID_ARGUMENTS', 'INVALID_ARGUMENTS']);
    expect(codes.slice(2)).toEqual(Array(4).fill('RATE_LIMITED'));
    // Many unknown argument names (as many as a body may hold: MAX_JSON_VALUES) make long
    // arguments: they are cut in the log too.
    const wide = Object.fromEntries(Array.from({ length: 9_000 }, (_, i) => [`k${i}`, i]));
    expect((await call(key, 'list_agents', wide)).status).toBe(200);
    // An unknown resource URI is logged with it as its argument.
    const uri = `service://brands/${'%ZZ'.repeat(200_000)}/memory`;
    const read = await rawMcp(svc, {
      key,
      body: { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri } },
    });
    expect(read.status).toBe(200);

    const log = await api(svc.url, 'GET', '/v1/mcp-calls?limit=100');
    expect(log.status).toBe(200);
    const entries = log.body.mcp_calls as { args: Record<string, unknown>; error_message: string | null }[];
    expect(entries).toHaveLength(8);
    for (const e of entries) {
      expect(JSON.stringify(e.args).length).toBeLessThanOrEqual(MAX_LOGGED_ARGS_CHARS + 200);
      expect((e.error_message ?? '').length).toBeLessThanOrEqual(MAX_LOGGED_MESSAGE_CHARS);
      expect(JSON.stringify(e)).not.toContain('sekret-token-value');
    }
    const cut = entries.filter((e) => e.args.truncated === true);
    expect(cut).toHaveLength(8);
    const previews = cut.map((e) => String(e.args.preview));
    expect(previews.filter((p) => p.startsWith('{"junk":"xxx'))).toHaveLength(6);
    expect(previews.filter((p) => p.startsWith('{"uri":"service://brands/%ZZ'))).toHaveLength(1);
    for (const e of cut) expect(e.args.chars).toBeGreaterThan(MAX_LOGGED_ARGS_CHARS);

    // What the database holds for them, on either engine.
    const db = (svc.handle as unknown as { ctx: ContentContext }).ctx.db;
    const [stored] = await db.all<{ n: number }>(
      'SELECT SUM(LENGTH(args) + COALESCE(LENGTH(error_message), 0)) AS n FROM mcp_calls',
    );
    expect(Number(stored?.n)).toBeLessThan(8 * (MAX_LOGGED_ARGS_CHARS + MAX_LOGGED_MESSAGE_CHARS + 200));
  });

  it("a NUL in a tool name or an argument's name loses no entry of the batch it was written with", async () => {
    // PostgreSQL refuses U+0000 in text: the raw tool name and the error message naming the
    // argument made the batch's INSERT fail, and every call batched with it (another key's
    // included) was lost from the audit log.
    const other = await makeKey(svc, ['read']);
    const hostile = await makeKey(svc, ['read']);
    const answers = await Promise.all([
      call(other.key, 'list_agents', {}),
      call(hostile.key, 'list_agents', { 'k\u0000': 1 }),
      call(hostile.key, 'no\u0000such_tool', {}),
    ]);
    for (const a of answers) expect(a.status).toBe(200);
    const log = async (id: string) =>
      (await api(svc.url, 'GET', `/v1/mcp-calls?key_id=${id}`)).body.mcp_calls as {
        tool: string;
        error_message: string | null;
      }[];
    expect((await log(other.id)).map((e) => e.tool)).toEqual(['list_agents']);
    const own = await log(hostile.id);
    expect(own.map((e) => e.tool).sort()).toEqual(['list_agents', 'no\uFFFDsuch_tool']);
    for (const e of own) expect(`${e.tool}${e.error_message}`).not.toContain('\u0000');
  });

  it('keeps small arguments as they were sent', async () => {
    const { key, id } = await makeKey(svc, ['read']);
    const args = { nested: { list: [1, 2, 3], text: 'y'.repeat(1_000) } };
    expect((await call(key, 'list_agents', args)).status).toBe(200);
    const log = await api(svc.url, 'GET', `/v1/mcp-calls?key_id=${id}`);
    expect(log.body.mcp_calls[0].args).toEqual(args);
  });
});
