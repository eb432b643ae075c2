// Eleventh pass (outside attack on stop 32): the largest JSON bodies the 1 MiB limit allows, sent
// while /health was polled. Bodies are parsed before a route authenticates, and V8's JSON.parse
// takes time that grows faster than the nesting: 500,000 nested arrays held the event loop of both
// services (one process) for 2-4 s under load, sent to commerce with no key at all (answered 401
// afterwards). The body's depth is now read from the text before parsing (platform/http/body.ts,
// json-depth.ts), so such a body is a 400 naming the limit, on REST and on /mcp, before any key is
// looked at. The same holds for a body of too many values (90,000 members cost 150-300 ms of
// JSON.parse alone): past MAX_JSON_VALUES it is refused from its text too. The cost of the walks
// after parsing (depth, U+0000) is not asserted here (timings never go into tests):
// `node bench/hostile-bodies.mjs` prints the longest /health gap per body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Commerce, sandboxUser, startCommerce } from '../commerce/helpers.js';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

const LIMIT = 1024 * 1024;
const nested = (levels: number, leaf = '0') => `${'['.repeat(levels)}${leaf}${']'.repeat(levels)}`;
/** `{"a": <levels of arrays>}`: the object is one level, so the whole body nests levels + 1. */
const deepBody = (levels: number) => `{"a":${nested(levels)}}`;
const tooDeep = (res: { status: number; body: any; headers: Headers }) => {
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', request_id: expect.any(String) });
  expect(res.body.error.message).toContain('nested more than 64 levels');
  expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
};
const tooMany = (res: { status: number; body: any }) => {
  expect(res.status).toBe(400);
  expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', request_id: expect.any(String) });
  expect(res.body.error.message).toContain('holds more than 10,000 values');
};
/** `{"a":[0,0,…]}` with `n` items: n - 1 commas. */
const wideBody = (n: number) => `{"a":[${Array(n).fill('0').join(',')}]}`;
const mcpCall = (args: string) =>
  `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_agents","arguments":${args}}}`;

describe('the largest JSON bodies the limit allows', () => {
  let content: TestService;
  let commerce: Commerce;
  let readKey: string;
  beforeAll(async () => {
    [content, commerce] = await Promise.all([
      startTestService('content', { config: { seed: 'none' } }),
      startCommerce(),
    ]);
    readKey = (await makeKey(content, ['read'])).key;
  });
  afterAll(() => Promise.all([content?.close(), commerce?.close()]));

  it('a body of 500,000 nested arrays is refused from its text, before the key is looked at', async () => {
    const body = deepBody(500_000);
    expect(body.length).toBeLessThan(LIMIT);
    // No key at all: the body used to be parsed in full, then answered 401.
    tooDeep(await api(commerce.svc.url, 'POST', '/v1/checkouts', { body }));
    tooDeep(await api(content.url, 'POST', '/v1/brands', { body }));
    // Objects nest the same way.
    tooDeep(
      await api(commerce.svc.url, 'POST', '/v1/checkouts', {
        body: `${'{"a":'.repeat(100_000)}0${'}'.repeat(100_000)}`,
      }),
    );
  });

  it('on /mcp, deep arguments are a JSON-RPC error, not a tool call', async () => {
    const res = await rawMcp(content, { key: readKey, body: mcpCall(nested(300_000)) });
    // Was 200 with the tool's INVALID_ARGUMENTS, after parsing and logging 300,000 levels.
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(res.body.error.message).toContain('nested more than 64 levels');
    // The envelope takes three levels; arguments nesting to 64 in all still reach the tool.
    const atLimit = await rawMcp(content, { key: readKey, body: mcpCall(`{"a":${nested(60)}}`) });
    expect(atLimit.status).toBe(200);
    expect(atLimit.body.result.isError).toBe(true);
    expect(atLimit.body.result.content[0].text).toContain(
      "INVALID_ARGUMENTS: Invalid arguments for list_agents: unknown argument 'a'",
    );
  });

  it('a body of more than 10,000 values is refused from its text, before the key is looked at', async () => {
    // No key at all: 500,000 numbers or 90,000 members were parsed, walked, then answered 401.
    tooMany(await api(commerce.svc.url, 'POST', '/v1/checkouts', { body: wideBody(500_000) }));
    const members = `{${Array.from({ length: 90_000 }, (_, i) => `"k${i}":0`).join(',')}}`;
    expect(members.length).toBeLessThan(LIMIT);
    tooMany(await api(content.url, 'POST', '/v1/brands', { body: members }));
    // On /mcp, a JSON-RPC error (HTTP 400), not a tool call.
    const res = await rawMcp(content, { key: readKey, body: mcpCall(members) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    expect(res.body.error.message).toContain('holds more than 10,000 values');
    // Exact: 9,999 items are 9,998 commas and 2 containers, 10,000 in all, and pass (refused by
    // the schema for the unknown field); 10,000 items do not. Commas inside strings do not count.
    const at = await api(content.url, 'POST', '/v1/brands', { body: wideBody(9_999) });
    expect(at.status).toBe(400);
    expect(at.body.error.message).not.toContain('values');
    tooMany(await api(content.url, 'POST', '/v1/brands', { body: wideBody(10_000) }));
    // Containers count too: 8,000 chains 63 deep are 7,999 commas but half a million arrays.
    const chains = `{"a":[${Array(8_000).fill(nested(62)).join(',')}]}`;
    expect(chains.length).toBeLessThan(LIMIT);
    tooMany(await api(commerce.svc.url, 'POST', '/v1/checkouts', { body: chains }));
    const commas = await api(content.url, 'POST', '/v1/brands', { body: `{"name":"${','.repeat(50_000)}"}` });
    expect(commas.body.error?.message ?? '').not.toContain('values');
  });

  it('on /mcp, 9,000 unknown argument names: a short error, and a bounded log entry', async () => {
    const args: Record<string, unknown> = { access_token: 'hunter2-secret' };
    for (let i = 0; i < 9_000; i++) args[`k${i}`] = 0;
    const body = mcpCall(JSON.stringify(args));
    expect(body.length).toBeLessThan(LIMIT);
    // A key of its own, so its one log entry is found by key (the test clock gives entries one time).
    const own = await makeKey(content, ['read'], 'wide');
    const res = await rawMcp(content, { key: own.key, body });
    expect(res.status).toBe(200);
    const message: string = res.body.result.content[0].text;
    // Was every name quoted, about 900 KB, in the answer and (cut) in the log.
    expect(message).toContain("unknown arguments 'access_token', 'k0', 'k1'");
    expect(message).toContain("'k8' and 8991 more");
    expect(message.length).toBeLessThan(500);
    const log = await api(content.url, 'GET', `/v1/mcp-calls?key_id=${own.id}`);
    expect(log.body.mcp_calls).toHaveLength(1);
    const [entry] = log.body.mcp_calls;
    expect(entry).toMatchObject({ tool: 'list_agents', error_code: 'INVALID_ARGUMENTS' });
    expect(entry.args).toMatchObject({ truncated: true, chars: JSON.stringify(args).length });
    expect(entry.args.preview).toBe(JSON.stringify({ ...args, access_token: '[redacted]' }).slice(0, 1_000));
    expect(JSON.stringify(entry)).not.toContain('hunter2');
  });

  it('the limit is exact, and brackets inside strings do not count', async () => {
    const { userToken } = await sandboxUser(commerce.svc, commerce.sandboxKey);
    const headers = { authorization: `Bearer ${commerce.sandboxKey}`, 'service-user-token': userToken };
    // 64 levels in all: past the depth check, refused by the schema for the unknown field.
    const at = await api(commerce.svc.url, 'POST', '/v1/checkouts', { body: deepBody(63), headers });
    expect(at.status).toBe(400);
    expect(at.body.error.message).not.toContain('nested');
    expect(at.body.error.param).toBe('a');
    tooDeep(await api(commerce.svc.url, 'POST', '/v1/checkouts', { body: deepBody(64), headers }));
    // A string full of brackets (and escaped quotes) is one value at depth 1.
    const name = `${'['.repeat(70_000)}\\"${'{'.repeat(70_000)}`;
    const res = await api(content.url, 'POST', '/v1/brands', { body: `{"name":"${name}"}` });
    expect(res.status).toBe(400);
    expect(res.body.error.message).not.toContain('nested');
    expect(res.body.error.param).toBe('name');
  });

  it('U+0000 is still found and named at the end of a body of 9,000 values', async () => {
    const values = Array(9_000).fill('0');
    values.push('{"b":[1,{"c":"x\\u0000"}]}');
    const res = await api(content.url, 'POST', '/v1/brands', {
      body: `{"name":"x","a":[${values.join(',')}]}`,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'a.9000.b.1.c' });
    expect(res.body.error.message).toContain("'a.9000.b.1.c' (in the body)");
    const named = await api(content.url, 'POST', '/v1/brands', {
      body: `{"name":"x","a":[${Array(5_000).fill('1').join(',')},{"b":{"n\\u0000":1}}]}`,
    });
    expect(named.status).toBe(400);
    expect(named.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'a.5000.b' });
    expect(named.body.error.message).toContain('A name in the body');
    // Nothing was written.
    expect((await api(content.url, 'GET', '/v1/brands')).body.brands).toEqual([]);
  });
});
