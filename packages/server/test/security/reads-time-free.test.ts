// Outside attack on the routes and MCP tools declared `readsTime: false` (GET /v1/posts,
// GET /v1/posts/{id}; list_posts, get_post, list_agents): they skip the sandbox clock read and run
// on a clock that throws if read. Every way an outsider can reach them (each filter, an unknown
// or malformed id or cursor, HEAD, repeated and odd query parameters, a sandbox clock another
// instance moved) must answer as documented, never a 500 or an INTERNAL_ERROR tool result from
// a handler that reads the time after all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import { api, sameDatabase, startTestService, type TestService } from '../helpers/start.js';

describe('clock-free post reads, reached every way an outsider can', () => {
  let a: TestService;
  let b: TestService;
  let key: string;
  let brandId: string;
  let postId: string;
  let channelId: string;

  beforeAll(async () => {
    a = await startTestService('content', { config: { seed: 'demo' } });
    b = await startTestService('content', { dataDir: a.dataDir, clock: a.clock, config: sameDatabase(a) });
    key = (await makeKey(a, ['read'])).key;
    const posts = (await api(a.url, 'GET', '/v1/posts?limit=1')).body.posts;
    postId = posts[0].id;
    brandId = posts[0].brand_id;
    channelId = posts[0].channel_id;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const targets = () => [
    '/v1/posts',
    `/v1/posts?brand_id=${brandId}`,
    '/v1/posts?brand_id=brd_nope',
    '/v1/posts?brand_id=',
    `/v1/posts?brand_id=${brandId}&brand_id=${brandId}`,
    '/v1/posts?status=published&platform=x&limit=100',
    '/v1/posts?status=scheduled',
    '/v1/posts?status=bogus',
    `/v1/posts?channel_id=${channelId}`,
    '/v1/posts?channel_id=ch_nope',
    '/v1/posts?limit=0',
    '/v1/posts?limit=1e3',
    '/v1/posts?after=post_nope',
    `/v1/posts?after=${postId}`,
    '/v1/posts?after=%00%ff',
    '/v1/posts?unknown=1',
    `/v1/posts/${postId}`,
    '/v1/posts/post_nope',
    `/v1/posts/${'a'.repeat(2000)}`,
    '/v1/posts/%F0%9F%98%80',
  ];

  it('REST: every answer is documented (2xx or a 4xx error body), on both instances', async () => {
    // Another instance moves the sandbox clock: the skipped read must not matter.
    expect(
      (await api(b.url, 'POST', '/v1/sandbox/clock/advance', { body: { minutes: 30 * 60 } })).status,
    ).toBe(200);
    for (const svc of [a, b])
      for (const path of targets())
        for (const method of ['GET', 'HEAD'] as const) {
          const res = await fetch(`${svc.url}${path}`, { method });
          expect(res.status, `${method} ${path}`).toBeLessThan(500);
          const text = await res.text();
          if (method === 'GET' && res.status >= 400) expect(JSON.parse(text).error.code, path).toBeTruthy();
        }
  });

  it('MCP: the clock-free tools answer or name the mistake, never INTERNAL_ERROR', async () => {
    const calls: [string, Record<string, unknown>][] = [
      ['list_agents', {}],
      ['list_posts', { brandId }],
      ['list_posts', { brandId: 'brd_nope' }],
      ['list_posts', { brandId, status: 'failed', limit: 100 }],
      ['list_posts', { brandId, limit: 0 }],
      ['get_post', { postId }],
      ['get_post', { postId: 'post_nope' }],
      ['get_post', { postId: 'x'.repeat(5000) }],
    ];
    for (const svc of [a, b])
      for (const [name, args] of calls) {
        const res = await rawMcp(svc, {
          key,
          body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
        });
        expect(res.status).toBe(200);
        const { result } = res.body;
        if (result.isError) expect(result.content[0].text, name).not.toContain('INTERNAL_ERROR');
      }
  });
});
