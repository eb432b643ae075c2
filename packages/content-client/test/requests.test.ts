import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpResponse, http } from 'msw';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ContentClient, type IdeaGenerateResponse, type paths } from '../src/index.js';
import { BASE, echoAll, makeClient, seen, server, useServer } from './helpers.js';

useServer();

type Call = [
  label: string,
  run: (c: ContentClient) => PromiseLike<unknown>,
  method: string,
  path: string,
  body?: unknown,
];

// Every operation the server serves under /v1, called through the client. The test below
// checks this table against the OpenAPI document, so a new route fails CI until it is covered.
const calls: Call[] = [
  ['brands.list', (c) => c.brands.list({ limit: 5 }), 'GET', '/brands?limit=5'],
  ['brands.create', (c) => c.brands.create({ name: 'B' }), 'POST', '/brands', { name: 'B' }],
  ['brands.retrieve', (c) => c.brands.retrieve('brd_1'), 'GET', '/brands/brd_1'],
  ['brands.update', (c) => c.brands.update('brd_1', { name: 'C' }), 'PATCH', '/brands/brd_1', { name: 'C' }],
  ['brands.delete', (c) => c.brands.delete('brd_1'), 'DELETE', '/brands/brd_1'],
  [
    'brands.bestTimes',
    (c) => c.brands.bestTimes('brd_1', { platform: 'x' }),
    'GET',
    '/brands/brd_1/best-times?platform=x',
  ],
  ['brands.memory.retrieve', (c) => c.brands.memory.retrieve('brd_1'), 'GET', '/brands/brd_1/memory'],
  [
    'brands.memory.addKnowledge',
    (c) => c.brands.memory.addKnowledge('brd_1', { title: 'T', body: 'B' }),
    'POST',
    '/brands/brd_1/memory/knowledge',
    { title: 'T', body: 'B' },
  ],
  [
    'brands.memory.deleteItem',
    (c) => c.brands.memory.deleteItem('brd_1', 'mem_1'),
    'DELETE',
    '/brands/brd_1/memory/items/mem_1',
  ],
  [
    'brands.memory.save',
    (c) => c.brands.memory.save('brd_1', { from: { kind: 'post', id: 'post_1' }, as: 'example_post' }),
    'POST',
    '/brands/brd_1/memory/save',
    { from: { kind: 'post', id: 'post_1' }, as: 'example_post' },
  ],
  [
    'brands.memory.preview',
    (c) => c.brands.memory.preview('brd_1', { from: { kind: 'signal', id: 'sig_1' }, as: 'knowledge' }),
    'POST',
    '/brands/brd_1/memory/preview',
    { from: { kind: 'signal', id: 'sig_1' }, as: 'knowledge' },
  ],
  ['channels.list', (c) => c.channels.list({ brand_id: 'brd_1' }), 'GET', '/channels?brand_id=brd_1'],
  ['channels.retrieve', (c) => c.channels.retrieve('ch_1'), 'GET', '/channels/ch_1'],
  ['channels.disconnect', (c) => c.channels.disconnect('ch_1'), 'DELETE', '/channels/ch_1'],
  [
    'channels.connect',
    (c) => c.channels.connect('brd_1', { platform: 'x' }),
    'POST',
    '/brands/brd_1/channels/connect',
    { platform: 'x' },
  ],
  [
    'insights.signals.list',
    (c) => c.insights.signals.list('brd_1', { kind: 'trend' }),
    'GET',
    '/brands/brd_1/signals?kind=trend',
  ],
  [
    'insights.signals.create',
    (c) => c.insights.signals.create('brd_1', { kind: 'news', title: 'N' }),
    'POST',
    '/brands/brd_1/signals',
    { kind: 'news', title: 'N' },
  ],
  ['ideas.list', (c) => c.ideas.list({ status: 'idea' }), 'GET', '/ideas?status=idea'],
  [
    'ideas.create',
    (c) => c.ideas.create({ brand_id: 'brd_1', title: 'I' }),
    'POST',
    '/ideas',
    { brand_id: 'brd_1', title: 'I' },
  ],
  [
    'ideas.generate',
    (c) => c.ideas.generate({ brand_id: 'brd_1' }),
    'POST',
    '/ideas/generate',
    { brand_id: 'brd_1' },
  ],
  ['ideas.retrieve', (c) => c.ideas.retrieve('idea_1'), 'GET', '/ideas/idea_1'],
  [
    'ideas.update',
    (c) => c.ideas.update('idea_1', { status: 'drafting' }),
    'PATCH',
    '/ideas/idea_1',
    { status: 'drafting' },
  ],
  ['ideas.delete', (c) => c.ideas.delete('idea_1'), 'DELETE', '/ideas/idea_1'],
  ['drafts.list', (c) => c.drafts.list({ platform: 'x' }), 'GET', '/drafts?platform=x'],
  [
    'drafts.create',
    (c) => c.drafts.create({ brand_id: 'brd_1', platform: 'x', text: 'Hi' }),
    'POST',
    '/drafts',
    { brand_id: 'brd_1', platform: 'x', text: 'Hi' },
  ],
  [
    'drafts.generate',
    (c) => c.drafts.generate({ idea_id: 'idea_1', platforms: ['x', 'threads'] }),
    'POST',
    '/drafts/generate',
    { idea_id: 'idea_1', platforms: ['x', 'threads'] },
  ],
  ['drafts.retrieve', (c) => c.drafts.retrieve('drf_1'), 'GET', '/drafts/drf_1'],
  ['drafts.update', (c) => c.drafts.update('drf_1', { text: 'T' }), 'PATCH', '/drafts/drf_1', { text: 'T' }],
  ['drafts.retrieveVersion', (c) => c.drafts.retrieveVersion('drf_1', 2), 'GET', '/drafts/drf_1/versions/2'],
  [
    'drafts.rewrite',
    (c) => c.drafts.rewrite('drf_1', { instruction: 'Shorter' }),
    'POST',
    '/drafts/drf_1/rewrite',
    { instruction: 'Shorter' },
  ],
  [
    'drafts.attachMedia',
    (c) => c.drafts.attachMedia('drf_1', { asset_id: 'med_1', variant: 'square' }),
    'POST',
    '/drafts/drf_1/media',
    { asset_id: 'med_1', variant: 'square' },
  ],
  ['posts.list', (c) => c.posts.list({ status: 'published' }), 'GET', '/posts?status=published'],
  ['posts.create', (c) => c.posts.create({ draft_id: 'drf_1' }), 'POST', '/posts', { draft_id: 'drf_1' }],
  ['posts.publish', (c) => c.posts.publish({ draft_id: 'drf_1' }), 'POST', '/posts', { draft_id: 'drf_1' }],
  [
    'posts.schedule',
    (c) => c.posts.schedule({ draft_id: 'drf_1', scheduled_for: '2030-01-01T09:00:00Z' }),
    'POST',
    '/posts',
    { draft_id: 'drf_1', scheduled_for: '2030-01-01T09:00:00Z' },
  ],
  ['posts.retrieve', (c) => c.posts.retrieve('post_1'), 'GET', '/posts/post_1'],
  ['posts.update', (c) => c.posts.update('post_1', { text: 'T' }), 'PATCH', '/posts/post_1', { text: 'T' }],
  ['posts.delete', (c) => c.posts.delete('post_1'), 'DELETE', '/posts/post_1'],
  ['posts.resolve', (c) => c.posts.resolve('post_1'), 'POST', '/posts/post_1/resolve'],
  ['posts.publishNow', (c) => c.posts.publishNow('post_1'), 'POST', '/posts/post_1/publish'],
  [
    'posts.confirm',
    (c) => c.posts.confirm('post_1', { published: true, external_id: '186' }),
    'POST',
    '/posts/post_1/confirm',
    { published: true, external_id: '186' },
  ],
  [
    'posts.replies',
    (c) => c.posts.replies('post_1', { theme: 'question' }),
    'GET',
    '/posts/post_1/replies?theme=question',
  ],
  ['insights.outcomes', (c) => c.insights.outcomes('brd_1'), 'POST', '/brands/brd_1/outcomes'],
  [
    'insights.outcomes, a page',
    (c) => c.insights.outcomes('brd_1', { limit: 100, after: 'cur' }),
    'POST',
    '/brands/brd_1/outcomes?limit=100&after=cur',
  ],
  ['approvals.list', (c) => c.approvals.list({ status: 'pending' }), 'GET', '/approvals?status=pending'],
  [
    'approvals.propose',
    (c) => c.approvals.propose({ draft_id: 'drf_1' }),
    'POST',
    '/approvals',
    { draft_id: 'drf_1' },
  ],
  [
    'approvals.bulk',
    (c) => c.approvals.bulk({ actions: [{ action: 'reject', id: 'apr_1', reason: 'Off-brand' }] }),
    'POST',
    '/approvals/bulk',
    { actions: [{ action: 'reject', id: 'apr_1', reason: 'Off-brand' }] },
  ],
  ['approvals.retrieve', (c) => c.approvals.retrieve('apr_1'), 'GET', '/approvals/apr_1'],
  [
    'approvals.update',
    (c) => c.approvals.update('apr_1', { text: 'T' }),
    'PATCH',
    '/approvals/apr_1',
    { text: 'T' },
  ],
  ['approvals.approve', (c) => c.approvals.approve('apr_1'), 'POST', '/approvals/apr_1/approve', {}],
  [
    'approvals.reject',
    (c) => c.approvals.reject('apr_1', { reason: 'No' }),
    'POST',
    '/approvals/apr_1/reject',
    { reason: 'No' },
  ],
  ['agents.list', (c) => c.agents.list(), 'GET', '/agents'],
  ['agents.retrieve', (c) => c.agents.retrieve('digest'), 'GET', '/agents/digest'],
  [
    'agents.run',
    (c) => c.agents.run('weekly_plan', { inputs: { brandId: 'brd_1' } }),
    'POST',
    '/agents/weekly_plan/runs',
    { inputs: { brandId: 'brd_1' } },
  ],
  ['agentRuns.list', (c) => c.agentRuns.list({ agent_id: 'digest' }), 'GET', '/agent-runs?agent_id=digest'],
  ['agentRuns.retrieve', (c) => c.agentRuns.retrieve('run_1'), 'GET', '/agent-runs/run_1'],
  ['automations.list', (c) => c.automations.list(), 'GET', '/automations'],
  [
    'automations.create',
    (c) =>
      c.automations.create({
        brand_id: 'brd_1',
        name: 'Weekly',
        agent_id: 'digest',
        trigger: { type: 'event', event: 'post.published' },
      }),
    'POST',
    '/automations',
    {
      brand_id: 'brd_1',
      name: 'Weekly',
      agent_id: 'digest',
      trigger: { type: 'event', event: 'post.published' },
    },
  ],
  ['automations.retrieve', (c) => c.automations.retrieve('auto_1'), 'GET', '/automations/auto_1'],
  [
    'automations.update',
    (c) => c.automations.update('auto_1', { enabled: false }),
    'PATCH',
    '/automations/auto_1',
    { enabled: false },
  ],
  ['automations.delete', (c) => c.automations.delete('auto_1'), 'DELETE', '/automations/auto_1'],
  ['automations.run', (c) => c.automations.run('auto_1'), 'POST', '/automations/auto_1/run'],
  [
    'insights.overview',
    (c) => c.insights.overview({ brand_id: 'brd_1', days: 7 }),
    'GET',
    '/insights/overview?brand_id=brd_1&days=7',
  ],
  ['insights.digest.retrieve', (c) => c.insights.digest.retrieve('brd_1'), 'GET', '/brands/brd_1/digest'],
  [
    'insights.digest.generate',
    (c) => c.insights.digest.generate('brd_1', { days: 14 }),
    'POST',
    '/brands/brd_1/digest',
    { days: 14 },
  ],
  [
    'insights.conversation',
    (c) => c.insights.conversation('brd_1', { days: 30 }),
    'GET',
    '/brands/brd_1/conversation?days=30',
  ],
  ['campaigns.list', (c) => c.campaigns.list(), 'GET', '/campaigns'],
  [
    'campaigns.create',
    (c) => c.campaigns.create({ brand_id: 'brd_1', name: 'Q3' }),
    'POST',
    '/campaigns',
    { brand_id: 'brd_1', name: 'Q3' },
  ],
  ['campaigns.retrieve', (c) => c.campaigns.retrieve('cmp_1'), 'GET', '/campaigns/cmp_1'],
  [
    'campaigns.update',
    (c) => c.campaigns.update('cmp_1', { goal: 'G' }),
    'PATCH',
    '/campaigns/cmp_1',
    { goal: 'G' },
  ],
  ['campaigns.delete', (c) => c.campaigns.delete('cmp_1'), 'DELETE', '/campaigns/cmp_1'],
  [
    'campaigns.canvas.retrieve',
    (c) => c.campaigns.canvas.retrieve('cmp_1'),
    'GET',
    '/campaigns/cmp_1/canvas',
  ],
  [
    'campaigns.canvas.addNote',
    (c) => c.campaigns.canvas.addNote('cmp_1', { text: 'N' }),
    'POST',
    '/campaigns/cmp_1/canvas/notes',
    { text: 'N' },
  ],
  [
    'campaigns.canvas.updateItem',
    (c) => c.campaigns.canvas.updateItem('cmp_1', 'note_1', { x: 10 }),
    'PATCH',
    '/campaigns/cmp_1/canvas/items/note_1',
    { x: 10 },
  ],
  [
    'campaigns.canvas.deleteItem',
    (c) => c.campaigns.canvas.deleteItem('cmp_1', 'note_1'),
    'DELETE',
    '/campaigns/cmp_1/canvas/items/note_1',
  ],
  ['media.list', (c) => c.media.list('brd_1', { tag: 'launch' }), 'GET', '/brands/brd_1/media?tag=launch'],
  [
    'media.fromUrl',
    (c) => c.media.fromUrl('brd_1', { url: 'https://example.com/a.png' }),
    'POST',
    '/brands/brd_1/media/from-url',
    { url: 'https://example.com/a.png' },
  ],
  ['media.upload', (c) => c.media.upload('brd_1', new Blob(['x'])), 'POST', '/brands/brd_1/media'],
  ['media.retrieve', (c) => c.media.retrieve('med_1'), 'GET', '/media/med_1'],
  ['media.update', (c) => c.media.update('med_1', { alt: 'A' }), 'PATCH', '/media/med_1', { alt: 'A' }],
  ['media.delete', (c) => c.media.delete('med_1'), 'DELETE', '/media/med_1'],
  ['media.fit', (c) => c.media.fit('med_1'), 'GET', '/media/med_1/fit'],
  ['apiKeys.list', (c) => c.apiKeys.list(), 'GET', '/api-keys'],
  ['mcpRelay.retrieve', (c) => c.mcpRelay.retrieve(), 'GET', '/mcp-relay'],
  [
    'apiKeys.create',
    (c) => c.apiKeys.create({ name: 'agent', scopes: ['read'] }),
    'POST',
    '/api-keys',
    { name: 'agent', scopes: ['read'] },
  ],
  ['apiKeys.revoke', (c) => c.apiKeys.revoke('key_1'), 'DELETE', '/api-keys/key_1'],
  ['mcpCalls.list', (c) => c.mcpCalls.list({ tool: 'list_posts' }), 'GET', '/mcp-calls?tool=list_posts'],
  ['mode.retrieve', (c) => c.mode.retrieve(), 'GET', '/mode'],
  [
    'memoryProposals.list',
    (c) => c.memoryProposals.list({ status: 'pending' }),
    'GET',
    '/memory-proposals?status=pending',
  ],
  [
    'memoryProposals.retrieve',
    (c) => c.memoryProposals.retrieve('prop_1'),
    'GET',
    '/memory-proposals/prop_1',
  ],
  [
    'memoryProposals.apply',
    (c) => c.memoryProposals.apply('prop_1'),
    'POST',
    '/memory-proposals/prop_1/apply',
  ],
  [
    'memoryProposals.dismiss',
    (c) => c.memoryProposals.dismiss('prop_1'),
    'POST',
    '/memory-proposals/prop_1/dismiss',
  ],
  ['sandboxClock.retrieve', (c) => c.sandboxClock.retrieve(), 'GET', '/sandbox/clock'],
  [
    'sandboxClock.advance',
    (c) => c.sandboxClock.advance({ hours: 6 }),
    'POST',
    '/sandbox/clock/advance',
    { hours: 6 },
  ],
];

// A list answers `{ ok: true }` here, which is not a page; its first request is what counts.
const settle = (p: PromiseLike<unknown>) => Promise.resolve(p).catch(() => undefined);

describe('every method sends the right request', () => {
  it.each(calls)('%s', async (_label, run, method, path, body) => {
    echoAll();
    const { client } = makeClient();
    await settle(run(client));
    const request = seen[0] as Request;
    expect(request.method).toBe(method);
    expect(request.url).toBe(`${BASE}${path}`);
    if (body !== undefined) {
      expect(request.headers.get('content-type')).toBe('application/json');
      expect(await request.json()).toEqual(body);
    }
    expect(request.headers.get('service-client')).toMatch(/^@svc\/content-client\//);
  });

  it('covers every operation of the OpenAPI document under /v1', () => {
    const doc = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../../docs/openapi/content.json'), 'utf8'),
    );
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      if (!path.startsWith('/v1/')) continue; // /health and OAuth callbacks are not API calls
      const pattern = new RegExp(`^${path.slice(3).replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const method of Object.keys(item).filter((m) =>
        ['get', 'post', 'patch', 'delete', 'put'].includes(m),
      )) {
        const hit = calls.some(
          ([, , m, p]) => m === method.toUpperCase() && pattern.test(p.split('?')[0] ?? ''),
        );
        if (!hit) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('options', () => {
  it('sends no credentials by default: local REST calls act as the person', async () => {
    echoAll();
    await makeClient().client.mode.retrieve();
    expect(seen[0]?.headers.get('authorization')).toBeNull();
  });

  it('sends apiKey and defaultHeaders for an authenticating proxy in front of the API', async () => {
    echoAll();
    const client = new ContentClient({
      baseUrl: `${BASE}/`,
      apiKey: 'proxy_token',
      defaultHeaders: { 'X-Proxy-User': 'ada' },
    });
    await client.mode.retrieve();
    expect(seen[0]?.url).toBe(`${BASE}/mode`);
    expect(seen[0]?.headers.get('authorization')).toBe('Bearer proxy_token');
    expect(seen[0]?.headers.get('x-proxy-user')).toBe('ada');
  });

  it('percent-encodes ids in paths', async () => {
    echoAll();
    await makeClient().client.ideas.retrieve('a/b?c');
    expect(seen[0]?.url).toBe(`${BASE}/ideas/a%2Fb%3Fc`);
  });

  it('sends an Idempotency-Key on POST, and the caller can choose it', async () => {
    echoAll();
    const { client } = makeClient();
    await client.ideas.create({ brand_id: 'brd_1', title: 'T' }, { idempotencyKey: 'mine' });
    await client.ideas.create({ brand_id: 'brd_1', title: 'T' });
    expect(seen[0]?.headers.get('idempotency-key')).toBe('mine');
    expect(seen[1]?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  // The spec's base_url is the service root (MCP is at {base_url}/mcp); REST is under /v1.
  // A bare origin used to throw. Every spelling must reach the same route.
  it.each([
    'https://content.test',
    'https://content.test/',
    'https://content.test/v1',
    'https://content.test/v1/',
  ])('accepts baseUrl %s, with or without /v1 and a trailing slash', async (baseUrl) => {
    echoAll();
    const client = new ContentClient({ baseUrl });
    await client.mode.retrieve();
    await client.withOptions({ baseUrl }).ideas.retrieve('idea_1');
    expect(seen.map((r) => r.url)).toEqual([`${BASE}/mode`, `${BASE}/ideas/idea_1`]);
  });

  it('refuses a baseUrl that is not an http(s) URL', () => {
    expect(() => new ContentClient({ baseUrl: 'not a url' })).toThrow(TypeError);
    expect(() => new ContentClient({ baseUrl: 'localhost:3000' })).toThrow(TypeError);
  });

  it('withOptions makes a copy with changed options', async () => {
    echoAll();
    const { client } = makeClient();
    await client.withOptions({ defaultHeaders: { 'x-extra': '1' } }).mode.retrieve();
    await client.mode.retrieve();
    expect(seen[0]?.headers.get('x-extra')).toBe('1');
    expect(seen[1]?.headers.get('x-extra')).toBeNull();
  });
});

// The server's ideas.generate response grows a shortfall report (as MCP suggest_ideas gives);
// the client must pass the body on as it is and type it from the generated schema alone.
describe('ideas.generate', () => {
  it('resolves to the whole response body, fields beside `ideas` included', async () => {
    const body = {
      ideas: [{ id: 'idea_1', title: 'One' }],
      shortfall: { requested: 3, generated: 1, reason: 'Only one signal.' },
    };
    server.use(http.post(`${BASE}/ideas/generate`, () => HttpResponse.json(body, { status: 201 })));
    const result = await makeClient().client.ideas.generate({ brand_id: 'brd_1', count: 3 });
    expect(result).toEqual(body);
  });

  it('is typed as the generated response, not a shape written in the client', () => {
    type Generated = paths['/v1/ideas/generate']['post']['responses'][201]['content']['application/json'];
    expectTypeOf<IdeaGenerateResponse>().toEqualTypeOf<Generated>();
    expectTypeOf<ReturnType<ContentClient['ideas']['generate']>>().resolves.toEqualTypeOf<Generated>();
  });
});
