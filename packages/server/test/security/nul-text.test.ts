// Tenth pass (outside attack on stop 31): U+0000 in request text. PostgreSQL refuses it in a text
// value, so on that engine a NUL anywhere a request's text reached SQL (a JSON body's string, a
// query parameter, a path parameter, a paging cursor) answered 500 INTERNAL_ERROR and was logged
// as a server fault; SQLite stored it. Now every REST route refuses it before anything runs, with
// 400 INVALID_REQUEST naming where it was, the same on both engines, and nothing is written; a
// cursor holding it is not one the API returned (400 on `after`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Commerce, sandboxUser, startCommerce } from '../commerce/helpers.js';
import { makeKey, rawMcp } from '../content/mcp-helpers.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

const cursor = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');

describe('U+0000 in request text', () => {
  let content: TestService;
  let commerce: Commerce;
  let brandId: string;
  beforeAll(async () => {
    [content, commerce] = await Promise.all([
      startTestService('content', { config: { seed: 'none' } }),
      startCommerce(),
    ]);
    brandId = (await api(content.url, 'POST', '/v1/brands', { body: { name: 'Plain' } })).body.id;
  });
  afterAll(() => Promise.all([content?.close(), commerce?.close()]));

  const refused = (res: { status: number; body: any; headers: Headers }, where: string, param?: string) => {
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', request_id: expect.any(String) });
    if (param) expect(res.body.error.param).toBe(param);
    expect(res.body.error.message).toContain('U+0000');
    expect(res.body.error.message).toContain(where);
    expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
  };
  // A cursor is opaque: one holding U+0000 is not one this list returned.
  const notACursor = (res: { status: number; body: any; headers: Headers }) => {
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_CURSOR', param: 'after' });
    expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
  };

  it('content: in a body string, a body key, a query parameter, a path parameter and a cursor', async () => {
    refused(await api(content.url, 'POST', '/v1/brands', { body: { name: 'a\u0000b' } }), "'name'", 'name');
    refused(
      await api(content.url, 'PATCH', `/v1/brands/${brandId}`, {
        body: { memory: { knowledge: [{ title: 'ok', body: 'x\u0000' }] } },
      }),
      "'memory.knowledge.0.body'",
      'memory.knowledge.0.body',
    );
    refused(
      await api(content.url, 'POST', '/v1/brands', { body: { 'na\u0000me': 'x' } }),
      'A name in the body',
    );
    refused(await api(content.url, 'GET', '/v1/posts?brand_id=brd_a%00b'), "'brand_id'", 'brand_id');
    refused(await api(content.url, 'GET', '/v1/brands/brd_a%00b'), "'id'", 'id');
    notACursor(
      await api(content.url, 'POST', `/v1/brands/${brandId}/outcomes?after=${cursor(['\u0000', 'x'])}`),
    );
    notACursor(await api(content.url, 'GET', `/v1/posts?after=${cursor(['\u0000', 'x'])}`));
    notACursor(await api(content.url, 'GET', `/v1/mcp-calls?after=${cursor(['x', '\u0000'])}`));
    // Nothing was written, and the server still answers.
    const brands = await api(content.url, 'GET', '/v1/brands');
    expect(brands.status).toBe(200);
    expect(brands.body.brands.map((b: { name: string }) => b.name)).toEqual(['Plain']);
    expect((await api(content.url, 'GET', `/v1/brands/${brandId}`)).body.memory.knowledge).toEqual([]);
  });

  it('commerce: in a body string and a path parameter', async () => {
    const { userToken } = await sandboxUser(commerce.svc, commerce.sandboxKey);
    const headers = { authorization: `Bearer ${commerce.sandboxKey}`, 'service-user-token': userToken };
    refused(
      await api(commerce.svc.url, 'POST', '/v1/checkouts', {
        body: { product_url: 'https://shop.example.com/p\u0000' },
        headers,
      }),
      "'product_url'",
    );
    refused(await api(commerce.svc.url, 'GET', '/v1/checkouts/chk_a%00b', { headers }), "'id'");
    const merchants = await api(
      commerce.svc.url,
      'GET',
      `/v1/merchants?after=${Buffer.from(JSON.stringify({ n: '\u0000', i: 'x' })).toString('base64url')}`,
      { headers },
    );
    expect(merchants.status).toBe(400);
    expect(merchants.body.error).toMatchObject({ param: 'after' });
  });

  // SQLite stored nothing and found no brand (NOT_FOUND); PostgreSQL refused the statement
  // (INVALID_REQUEST from the database layer, naming nothing). Now both refuse it up front, as
  // REST does, naming the argument.
  it('MCP: a tool argument holding it is INVALID_REQUEST naming the argument, on either engine', async () => {
    const { key } = await makeKey(content, ['read', 'write']);
    const call = async (name: string, args: Record<string, unknown>) => {
      const res = await rawMcp(content, {
        key,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      });
      expect(res.status).toBe(200);
      expect(res.body.result.isError).toBe(true);
      return res.body.result.content[0].text as string;
    };
    const refusedArgument = (text: string, where: string) => {
      expect(text).toContain('Error INVALID_REQUEST: ');
      expect(text).toContain(`${where} contains the character U+0000 (NUL)`);
    };
    refusedArgument(await call('list_posts', { brandId: 'brd_a\u0000b' }), "'brandId' (in the arguments)");
    // Nested, as run_agent carries its ids, and before the arguments are validated.
    refusedArgument(
      await call('run_agent', { agentId: 'digest', inputs: { brandId: `${brandId}\u0000` } }),
      "'inputs.brandId' (in the arguments)",
    );
    refusedArgument(await call('create_idea', { 'brand\u0000Id': brandId }), 'A name in the arguments');
    // In a batch, the message holding it is refused and the clean one beside it answered: a body
    // whose text holds a NUL is walked (text-checks.ts), message by message.
    const batch = await rawMcp(content, {
      key,
      body: [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: {} } },
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'list_posts', arguments: { brandId: 'brd_\u0000' } },
        },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.map((r: any) => r.result.isError ?? false)).toEqual([false, true]);
    refusedArgument(batch.body[1].result.content[0].text, "'brandId' (in the arguments)");
    // Nothing ran: no agent run was recorded, and the server still answers.
    const runs = await api(content.url, 'GET', '/v1/agent-runs');
    expect(runs.status).toBe(200);
    expect(runs.body.agent_runs).toEqual([]);
  });
});
