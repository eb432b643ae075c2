import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  joinJson,
  type RawJson,
  resultMemo,
  serialize,
  toolResultJson,
} from '../../src/content/mcp/jsonrpc.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeKey, rawMcp } from './mcp-helpers.js';

/*
 * A tool result carries its data twice (a JSON text block and structuredContent). It is built
 * from the data's JSON by escaping its UTF-8 bytes instead of a second JSON.stringify pass
 * (issue 20); these tests hold it to the bytes the second pass gave, on awkward data and over
 * HTTP on real tool answers.
 */
const reference = (summary: string, json: string) =>
  `{"content":[{"type":"text","text":${JSON.stringify(summary)}},{"type":"text","text":${JSON.stringify(json)}}],"structuredContent":${json}}`;

const bytesOf = ({ json }: RawJson) =>
  typeof json === 'string' ? Buffer.from(json) : Buffer.isBuffer(json) ? json : Buffer.concat(json);

describe('a tool result without a second JSON.stringify pass', () => {
  const awkward: unknown[] = [
    {},
    { mode_label: '(sandbox · simulated)', posts: [] },
    { text: 'say "hi" \\ back\\slash \\" both', path: 'C:\\temp\\"x"' },
    { controls: '\u0000\u0001\b\f\n\r\t\u001f\u007f', tab: 'a\tb' },
    { lone: '\ud800 and \udfff, pair 😀, reversed \udc00\ud800' },
    { separators: 'line\u2028paragraph\u2029end', bom: '\ufeff', nbsp: '\u00a0', latin: 'é·ß' },
    { cjk: '日本語の "引用" \\ と 改行\n', emoji: '🚀✓—', zwj: '👩‍💻' },
    { numbers: [0, -0, 1e21, 1.5e-7, Number.MAX_SAFE_INTEGER], nested: { a: [{ b: null, c: true }] } },
    { long: 'x"\\'.repeat(5000) },
  ];

  it('gives exactly the bytes of the double serialisation, for every kind of character', () => {
    for (const data of awkward) {
      const json = JSON.stringify(data);
      for (const summary of ['(sandbox · simulated) 3 posts.', 'quote " and \\ and \n and 😀']) {
        expect(bytesOf(toolResultJson(summary, json)).toString('utf8')).toBe(reference(summary, json));
        expect(bytesOf(toolResultJson(summary, json)).equals(Buffer.from(reference(summary, json)))).toBe(
          true,
        );
      }
    }
  });

  it('every one of the first 65,536 code points, alone and between quotes', () => {
    const all = Array.from({ length: 0x10000 }, (_, i) => String.fromCharCode(i));
    const json = JSON.stringify({ all: all.join(''), quoted: all.map((c) => `"${c}\\`) });
    expect(bytesOf(toolResultJson('s', json)).equals(Buffer.from(reference('s', json)))).toBe(true);
  });

  it("keeps a tool's last answer only for the same JSON and summary: new ones, however close, get their own bytes", () => {
    const memo = resultMemo();
    const datas = [
      { posts: [{ id: 'a', text: 'one "two"' }] },
      { posts: [{ id: 'a', text: 'one "two"' }] },
      { posts: [{ id: 'a', text: 'one "twO"' }] },
      { posts: [{ id: 'a', text: 'one "two"' }], more: true },
      {},
      { posts: [{ id: 'a', text: 'one "two"' }] },
    ];
    for (const [i, data] of datas.entries()) {
      const json = JSON.stringify(data);
      // The summary's bytes are kept too: the same one twice, then one a character apart.
      const summary = ['5 posts', '5 posts', '5 "posts"', '5 posts', '6 posts', '6 posts'][i] as string;
      expect(bytesOf(toolResultJson(summary, json, memo)).toString('utf8')).toBe(reference(summary, json));
    }
  });

  it('is spliced into the JSON-RPC reply, alone, in a batch and as an event', () => {
    const json = JSON.stringify({ mode_label: '(sandbox · simulated)', text: 'a "b" \\ c ✓' });
    const result = toolResultJson('(sandbox · simulated) one.', json);
    const plain = JSON.stringify({
      jsonrpc: '2.0',
      id: 'x"1',
      result: JSON.parse(reference('(sandbox · simulated) one.', json)),
    });
    const one = serialize({ jsonrpc: '2.0', id: 'x"1', result });
    expect(Buffer.from(one).toString()).toBe(plain);
    const other = serialize({ jsonrpc: '2.0', id: 2, result: {} });
    expect(Buffer.from(joinJson([one, other])).toString()).toBe(`[${plain},${other}]`);
    expect(joinJson([other, other])).toBe(`[${other},${other}]`);
    expect(Buffer.from(joinJson([one], 'event: message\ndata: ', '\n\n')).toString()).toBe(
      `event: message\ndata: ${plain}\n\n`,
    );
  });
});

describe('tool answers over HTTP are the bytes of the double serialisation', () => {
  let svc: TestService;
  let key: string;
  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
    key = (await makeKey(svc, ['read'])).key;
  });
  afterAll(() => svc?.close());

  it('list_posts, get_post and list_agents, as JSON and as an event stream', async () => {
    const brandId = (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id;
    const posts = await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=1`);
    const calls = [
      ['list_posts', { brandId, limit: 20 }],
      ['get_post', { postId: posts.body.posts[0].id }],
      ['list_agents', {}],
    ] as const;
    for (const [name, args] of calls) {
      const body = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } };
      const res = await rawMcp(svc, { key, body });
      expect(res.status).toBe(200);
      const { result } = res.body;
      expect(result.isError, res.raw.slice(0, 300)).toBeUndefined();
      const json = JSON.stringify(result.structuredContent);
      const expected = `{"jsonrpc":"2.0","id":7,"result":${reference(result.content[0].text, json)}}`;
      expect(res.raw).toBe(expected);
      expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(expected));
      expect(JSON.parse(result.content[1].text)).toEqual(result.structuredContent);

      const sse = await rawMcp(svc, { key, body, headers: { accept: 'text/event-stream' } });
      expect(sse.raw).toBe(`event: message\ndata: ${expected}\n\n`);
    }
    // The same list twice, then a post more: the third answer holds it (nothing kept goes stale).
    const listPosts = {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'list_posts', arguments: { brandId } },
    };
    const before = (await rawMcp(svc, { key, body: listPosts })).body.result.structuredContent.posts;
    expect((await rawMcp(svc, { key, body: listPosts })).body.result.structuredContent.posts).toEqual(before);
    const channelId = before[0].channel_id;
    const made = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: channelId, text: 'A post made between two identical calls.' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const after = await rawMcp(svc, { key, body: listPosts });
    const afterResult = after.body.result;
    expect(afterResult.structuredContent.posts.map((p: any) => p.id)).toContain(made.body.id);
    expect(after.raw).toBe(
      `{"jsonrpc":"2.0","id":8,"result":${reference(afterResult.content[0].text, JSON.stringify(afterResult.structuredContent))}}`,
    );
    const batch = await rawMcp(svc, {
      key,
      body: [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: {} } },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
      ],
    });
    const first = batch.body[0].result;
    const firstJson = JSON.stringify(first.structuredContent);
    expect(batch.raw).toBe(
      `[{"jsonrpc":"2.0","id":1,"result":${reference(first.content[0].text, firstJson)}},{"jsonrpc":"2.0","id":2,"result":{}}]`,
    );
  });
});
