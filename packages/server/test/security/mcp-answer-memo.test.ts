// Outside attack on MCP's per-tool memo of the escaped answer (content/mcp/jsonrpc.ts,
// `ResultMemo`), the five read tools declared `readsTime: false` at stop 29 (list_brands,
// get_brand_memory, list_campaigns, list_ideas, list_memory_proposals) and the one-entry cache of
// the last Accept header's negotiation (content/mcp/router.ts). Two keys on two instances sharing
// one database ask about two brands in turn, a write lands between two reads on the other
// instance, and the sandbox clock is moved by the other instance. Each answer must be the caller's
// own and current: both text blocks and structuredContent agree with each other and with REST.
// Accept headers alternate between callers: each gets the form its own header asks for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import { api, sameDatabase, startTestService, type TestService } from '../helpers/start.js';

type Answer = { structured: Record<string, unknown>; blocks: string[] };

async function call(svc: TestService, key: string, name: string, args: Record<string, unknown> = {}) {
  const res = await rawMcp(svc, {
    key,
    headers: { accept: 'application/json' },
    body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } },
  });
  expect(res.status).toBe(200);
  const result = res.body.result;
  expect(result.isError, JSON.stringify(result)).toBeFalsy();
  const answer: Answer = {
    structured: result.structuredContent,
    blocks: result.content.map((c: { text: string }) => c.text),
  };
  // The escaped text block is exactly the structured content, whoever asked before.
  expect(JSON.parse(answer.blocks[1] as string)).toEqual(answer.structured);
  return answer;
}

describe('MCP answers memoised per tool, read by two keys on two instances', () => {
  let a: TestService;
  let b: TestService;
  let readA: string;
  let readB: string;
  let writeB: string;
  let brands: { id: string; name: string }[];

  beforeAll(async () => {
    a = await startTestService('content', { config: { seed: 'demo' } });
    b = await startTestService('content', { dataDir: a.dataDir, clock: a.clock, config: sameDatabase(a) });
    readA = (await makeKey(a, ['read'])).key;
    readB = (await makeKey(b, ['read'])).key;
    writeB = (await makeKey(b, ['read', 'write'])).key;
    // The demo's brand and a second one, whose memory differs from it.
    const second = await api(a.url, 'POST', '/v1/brands', { body: { name: 'Second brand' } });
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    brands = (await api(a.url, 'GET', '/v1/brands')).body.brands;
    expect(brands.length).toBe(2);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('answers each brand with its own memory, alternating keys and brands', async () => {
    const [one, two] = brands as unknown as [{ id: string }, { id: string }];
    const rest = async (id: string) => (await api(a.url, 'GET', `/v1/brands/${id}/memory`)).body;
    const expected = { [one.id]: await rest(one.id), [two.id]: await rest(two.id) };
    expect(expected[one.id]).not.toEqual(expected[two.id]);
    for (const [svc, key, brand] of [
      [a, readA, one],
      [a, readB, two],
      [a, readA, one],
      [a, readA, two],
      [b, readB, one],
      [b, readA, two],
    ] as const) {
      const got = await call(svc, key, 'get_brand_memory', { brandId: brand.id });
      expect(got.structured.brand_id).toBe(brand.id);
      expect(got.structured.memory).toEqual(expected[brand.id]);
    }
  });

  it('answers with a write made on the other instance at once, not the memo of the last answer', async () => {
    const brandId = (brands[0] as { id: string }).id;
    const before = await call(a, readA, 'get_brand_memory', { brandId });
    // The same answer again: the memo is used.
    expect(await call(a, readA, 'get_brand_memory', { brandId })).toEqual(before);
    const title = `Memo check ${Date.now()}`;
    const added = await call(b, writeB, 'add_knowledge', { brandId, title, body: 'Written on B.' });
    expect(added.structured.knowledge_count).toBeGreaterThan(0);
    const after = await call(a, readA, 'get_brand_memory', { brandId });
    const titles = (after.structured.memory as { knowledge: { title: string }[] }).knowledge.map(
      (n) => n.title,
    );
    expect(titles).toContain(title);
    expect(after.blocks[0]).not.toBe(before.blocks[0]);
  });

  it('the clock-free read tools answer after the other instance moves the sandbox clock', async () => {
    expect((await api(b.url, 'POST', '/v1/sandbox/clock/advance', { body: { minutes: 90 } })).status).toBe(
      200,
    );
    for (const brand of brands.slice(0, 2)) {
      for (const [name, args] of [
        ['list_brands', {}],
        ['get_brand_memory', { brandId: brand.id }],
        ['list_campaigns', { brandId: brand.id }],
        ['list_campaigns', {}],
        ['list_ideas', { brandId: brand.id }],
        ['list_ideas', { brandId: brand.id, status: 'scheduled' }],
        ['list_memory_proposals', { brandId: brand.id }],
        ['list_memory_proposals', { status: 'pending' }],
      ] as const) {
        await call(a, readA, name, args);
        await call(b, readB, name, args);
      }
    }
  });

  it("negotiates each caller's own Accept header, whoever asked last", async () => {
    const forms: Record<string, string> = {
      'text/event-stream': 'text/event-stream',
      'application/json': 'application/json',
      'application/json;q=0.1, text/event-stream': 'text/event-stream',
      'text/event-stream;q=0.1, application/json': 'application/json',
      '*/*': 'application/json',
    };
    const order = Object.keys(forms);
    for (let round = 0; round < 3; round++) {
      for (const accept of round % 2 ? [...order].reverse() : order) {
        const res = await rawMcp(a, {
          key: readA,
          headers: { accept },
          body: { jsonrpc: '2.0', id: 1, method: 'ping' },
        });
        expect(res.status, accept).toBe(200);
        expect(res.headers.get('content-type'), accept).toContain(forms[accept]);
      }
      const refused = await rawMcp(a, {
        key: readA,
        headers: { accept: 'text/html' },
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
      });
      expect(refused.status).toBe(406);
    }
  });
});
