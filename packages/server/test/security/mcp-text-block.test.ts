// Outside attack on the MCP tool result built by escaping the data's UTF-8 bytes into the text
// block (content/mcp/jsonrpc.ts, toolResultJson) instead of a second JSON.stringify: text an
// outsider chose (a post written over REST, a JSON-RPC id) with quotes, backslashes, control
// characters, U+2028/2029, a lone surrogate and astral characters must come back over HTTP as
// well-formed UTF-8, valid JSON, and a text block that parses to exactly the structuredContent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBrand } from '../content/helpers.js';
import { makeKey } from '../content/mcp-helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

const NASTY =
  'say "hi" \\ \\" \u0001\u001f\u007f tab\t cr\r lf\n line\u2028para\u2029 lone \ud800 end \udfff 😀 \ufeff';

/** A raw POST to /mcp, its body decoded strictly: invalid UTF-8 throws instead of becoming U+FFFD. */
async function mcpBytes(svc: TestService, key: string, body: unknown, accept = 'application/json') {
  const res = await fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  expect(res.status).toBe(200);
  expect(Number(res.headers.get('content-length') ?? bytes.length)).toBe(bytes.length);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** The result's text block and structuredContent say the same, and the reply is canonical JSON. */
function checkResult(raw: string) {
  const reply = JSON.parse(raw);
  const { result } = reply;
  expect(result.isError, raw.slice(0, 300)).toBeUndefined();
  expect(JSON.parse(result.content[1].text)).toEqual(result.structuredContent);
  // Nothing is lost or added between the bytes sent and a plain re-serialisation of them.
  expect(raw).toBe(JSON.stringify(reply));
  return reply;
}

describe('MCP tool results carrying text an outsider chose', () => {
  let svc: TestService;
  let key: string;
  let brandId: string;
  let postId: string;
  let stored: string;

  beforeAll(async () => {
    svc = await startTestService('content');
    key = (await makeKey(svc, ['read'])).key;
    const brand = await makeBrand(svc, { channels: ['linkedin'] });
    brandId = brand.id;
    const made = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.linkedin, text: `${NASTY}${'"\\'.repeat(1000)}` },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    postId = made.body.id;
    // What the database kept (a lone surrogate cannot be stored as UTF-8; REST shows what was).
    stored = (await api(svc.url, 'GET', `/v1/posts/${postId}`)).body.parts[0].text;
    expect(stored).toContain('line\u2028para\u2029');
  });
  afterAll(() => svc?.close());

  it('get_post and list_posts: the text block is the structuredContent, as JSON and as events', async () => {
    const calls = [
      ['get_post', { postId }],
      ['list_posts', { brandId, limit: 5 }],
    ] as const;
    for (const [name, args] of calls) {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
      const reply = checkResult(await mcpBytes(svc, key, body));
      const post =
        name === 'get_post' ? reply.result.structuredContent.post : reply.result.structuredContent.posts[0];
      expect(post.parts[0].text).toBe(stored);

      const sse = await mcpBytes(svc, key, body, 'text/event-stream');
      expect(sse.startsWith('event: message\ndata: ')).toBe(true);
      expect(sse.endsWith('\n\n')).toBe(true);
      checkResult(sse.slice('event: message\ndata: '.length, -2));
    }
  });

  it('an id with the same characters comes back as sent, alone and in a batch', async () => {
    const id = NASTY;
    const call = {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'get_post', arguments: { postId } },
    };
    expect(checkResult(await mcpBytes(svc, key, call)).id).toBe(id);
    const batch = JSON.parse(await mcpBytes(svc, key, [call, { ...call, id: 2 }]));
    expect(batch.map((r: { id: unknown }) => r.id)).toEqual([id, 2]);
    for (const r of batch) checkResult(JSON.stringify(r));
  });
});
