// The MCP tool server through the official SDK client over Streamable HTTP, against a real
// server with the demo workspace: the catalog, every tool, the resource, scopes, keys, errors.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { connect, fails, LABEL, makeKey, ok, rawMcp, text } from './mcp-helpers.js';

const READ = [
  'list_brands',
  'get_brand_memory',
  'list_posts',
  'get_post',
  'get_digest',
  'best_times',
  'list_campaigns',
  'list_ideas',
  'list_approvals',
  'list_memory_proposals',
  'get_conversation',
  'list_media',
  'list_agents',
  'get_agent_run',
];
const WRITE = [
  'create_idea',
  'suggest_ideas',
  'draft_idea',
  'propose_post',
  'attach_media',
  'run_agent',
  'add_knowledge',
  'save_to_memory',
  'add_canvas_note',
];

let svc: TestService;
let rw: { key: string; id: string };
let client: Client;
let brandId: string;

beforeAll(async () => {
  svc = await startTestService('content', { config: { seed: 'demo' } });
  rw = await makeKey(svc, ['read', 'write']);
  client = await connect(svc, rw.key);
  brandId = (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id;
});

afterAll(async () => {
  await client?.close();
  await svc?.close();
});

describe('the catalog', () => {
  it('lists exactly the 23 tools, with schemas, descriptions and annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ, ...WRITE].sort());
    for (const t of tools) {
      const read = READ.includes(t.name);
      expect(t.annotations).toMatchObject({
        readOnlyHint: read,
        destructiveHint: false,
        openWorldHint: false,
      });
      expect(t.annotations?.idempotentHint).toBe(read);
      expect(t.description?.length).toBeGreaterThan(80);
      expect(t.description).toContain(`'${read ? 'read' : 'write'}' scope`);
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.outputSchema?.properties).toHaveProperty('mode_label');
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.list_posts?.inputSchema).toMatchObject({
      required: ['brandId'],
      properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
    });
    expect(byName.draft_idea?.inputSchema).toMatchObject({
      required: ['ideaId', 'platforms'],
      properties: {
        platforms: { minItems: 1, maxItems: 4, items: { enum: ['x', 'linkedin', 'instagram', 'threads'] } },
      },
    });
    expect(byName.propose_post?.inputSchema.required).toEqual(['draftId']);
  });

  it('reports itself on initialize: tools and resources, no sessions', async () => {
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {} });
    expect(client.getServerVersion()?.name).toBe('svc-content');
    expect(client.getInstructions()).toContain('never publish');
  });
});

describe('read tools on the demo brand', () => {
  it('list_brands, get_brand_memory', async () => {
    const brands = await ok(client, 'list_brands');
    expect(brands.data.brands[0]).toMatchObject({ id: brandId });
    expect(brands.data.brands[0].channels.length).toBe(2);
    const memory = await ok(client, 'get_brand_memory', { brandId });
    expect(memory.data.memory.voice.banned_words.length).toBeGreaterThan(0);
    expect(memory.text).toContain('Brand Memory of');
  });

  it('list_posts newest first with metrics and verdicts; get_post with growth and baseline', async () => {
    const posts = await ok(client, 'list_posts', { brandId, limit: 5 });
    expect(posts.data.posts).toHaveLength(5);
    expect(posts.data.has_more).toBe(true);
    const times = posts.data.posts.map((p: { published_at: string }) => p.published_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(posts.data.posts[0].metrics).not.toBeNull();
    expect(posts.data.posts[0].verdict).toMatch(
      /outperforming|on_par|underperforming|too_early|not_enough_data/,
    );
    const rest = await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=5`);
    expect(posts.data.posts.map((p: { id: string }) => p.id)).toEqual(
      rest.body.posts.map((p: { id: string }) => p.id),
    );
    const published = await ok(client, 'list_posts', { brandId, status: 'published' });
    expect(published.data.posts).toHaveLength(20);
    const post = await ok(client, 'get_post', { postId: posts.data.posts[0].id });
    expect(post.data.post.outcome.verdict).toBeDefined();
    expect(post.data.post.growth.length).toBeGreaterThan(0);
    expect(post.data.post.baseline.length).toBeGreaterThan(0);
  });

  it('get_digest, best_times, get_conversation', async () => {
    const digest = await ok(client, 'get_digest', { brandId });
    expect(digest.data.digest.headline).toBeTruthy();
    const cited = [...digest.data.digest.wins, ...digest.data.digest.recommendations];
    expect(
      cited.some(
        (c: { post_ids: string[]; signal_ids: string[] }) => c.post_ids.length + c.signal_ids.length > 0,
      ),
    ).toBe(true);
    const times = await ok(client, 'best_times', { brandId });
    expect(times.data.platforms.map((p: { platform: string }) => p.platform).sort()).toEqual([
      'linkedin',
      'x',
    ]);
    for (const s of times.data.platforms[0].slots) {
      expect(s.weekday).toBeGreaterThanOrEqual(0);
      expect(s.weekday).toBeLessThanOrEqual(6);
      expect(s.hour).toBeGreaterThanOrEqual(0);
      expect(s.hour).toBeLessThanOrEqual(23);
      expect(s.score).toBeGreaterThanOrEqual(0);
      expect(s.score).toBeLessThanOrEqual(1);
    }
    const one = await ok(client, 'best_times', { brandId, platform: 'instagram' });
    expect(one.data.platforms.map((p: { platform: string }) => p.platform)).toEqual(['instagram']);
    const conv = await ok(client, 'get_conversation', { brandId, days: 90 });
    const counts = conv.data.themes.map((t: { count: number }) => t.count);
    expect(counts.length).toBeGreaterThan(0);
    expect([...counts].sort((a, b) => b - a)).toEqual(counts);
  });

  it('list_campaigns, list_ideas, list_memory_proposals, list_media, list_agents', async () => {
    const campaigns = await ok(client, 'list_campaigns', { brandId });
    expect(campaigns.data.campaigns.length).toBeGreaterThan(0);
    expect((await ok(client, 'list_campaigns')).data.campaigns.length).toBe(campaigns.data.campaigns.length);
    const ideas = await ok(client, 'list_ideas', { brandId });
    expect(ideas.data.ideas.length).toBeGreaterThan(0);
    const updated = ideas.data.ideas.map((i: { updated_at: string }) => i.updated_at);
    expect([...updated].sort().reverse()).toEqual(updated);
    const onlyIdea = await ok(client, 'list_ideas', { brandId, status: 'idea' });
    expect(onlyIdea.data.ideas.every((i: { status: string }) => i.status === 'idea')).toBe(true);
    const proposals = await ok(client, 'list_memory_proposals', { brandId });
    expect(proposals.data.counts).toMatchObject({ pending: expect.any(Number) });
    const media = await ok(client, 'list_media', { brandId });
    expect(media.data.media).toEqual([]);
    const agents = await ok(client, 'list_agents');
    expect(agents.data.agents.map((a: { id: string }) => a.id)).toEqual([
      'weekly_plan',
      'repurpose_winner',
      'voice_check',
      'digest',
      'voice_refresh',
    ]);
    expect(agents.data.agents[0].inputs[0]).toMatchObject({ name: 'brandId', required: true });
  });

  it('list_approvals puts pending first and counts each status', async () => {
    const all = await ok(client, 'list_approvals');
    expect(all.data.counts.pending).toBeGreaterThan(0);
    expect(all.data.approvals[0].status).toBe('pending');
    expect(all.data.approvals[0]).toHaveProperty('voice_check.checks');
    expect(all.text).toMatch(/\d+ pending, \d+ approved, \d+ rejected/);
    const rejected = await ok(client, 'list_approvals', { status: 'rejected', brandId });
    expect(rejected.data.approvals).toEqual([]);
  });
});

describe('write tools on the demo brand', () => {
  it('create_idea, suggest_ideas (each citing a signal), draft_idea (a new version per draft)', async () => {
    const idea = await ok(client, 'create_idea', {
      brandId,
      title: 'What a no-meeting Wednesday taught us',
      angle: 'A before and after',
    });
    expect(idea.data.idea).toMatchObject({ status: 'idea', angle: 'A before and after', notes: null });
    const suggested = await ok(client, 'suggest_ideas', { brandId, count: 2 });
    expect(suggested.data.ideas).toHaveLength(2);
    for (const i of suggested.data.ideas) expect(i.signal?.id).toMatch(/^sig_/);
    expect(suggested.text).toContain('from signal sig_');
    const first = await ok(client, 'draft_idea', { ideaId: idea.data.idea.id, platforms: ['x', 'linkedin'] });
    expect(
      first.data.drafts.map((d: { platform: string; version: number }) => [d.platform, d.version]),
    ).toEqual([
      ['x', 1],
      ['linkedin', 1],
    ]);
    const again = await ok(client, 'draft_idea', { ideaId: idea.data.idea.id, platforms: ['x'] });
    expect(again.data.drafts[0]).toMatchObject({ id: first.data.drafts[0].id, version: 2 });
    const detail = await api(svc.url, 'GET', `/v1/drafts/${first.data.drafts[0].id}`);
    expect(detail.body.versions.map((v: { source: string }) => v.source)).toEqual(['mcp', 'mcp']);
  });

  it('attach_media saves a new version with the preferred crop; propose_post takes the next free best-time slot', async () => {
    const png = await sharp({ create: { width: 1600, height: 1000, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'chart.png');
    form.append('tags', 'chart');
    const asset = await (
      await fetch(`${svc.url}/v1/brands/${brandId}/media`, { method: 'POST', body: form })
    ).json();
    const listed = await ok(client, 'list_media', { brandId });
    expect(listed.data.media.map((m: { id: string }) => m.id)).toEqual([asset.id]);

    const idea = await ok(client, 'create_idea', { brandId, title: 'Our meeting-load chart' });
    const [draft] = (await ok(client, 'draft_idea', { ideaId: idea.data.idea.id, platforms: ['x'] })).data
      .drafts;
    const attached = await ok(client, 'attach_media', { draftId: draft.id, assetId: asset.id });
    expect(attached.data.draft.version).toBe(draft.version + 1);
    expect(attached.data.draft.parts[0].media[0]).toMatchObject({ asset_id: asset.id, variant: 'wide' });
    const square = await ok(client, 'attach_media', {
      draftId: draft.id,
      assetId: asset.id,
      variant: 'square',
    });
    expect(square.data.draft.parts[0].media).toEqual([expect.objectContaining({ variant: 'square' })]);

    const before = await ok(client, 'best_times', { brandId, platform: 'x' });
    const nextFree = before.data.platforms[0].next_free.at;
    const postsBefore = (await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=100`)).body.posts
      .length;
    const proposed = await ok(client, 'propose_post', {
      draftId: draft.id,
      reason: 'The chart did well in replies.',
    });
    expect(proposed.data.approval).toMatchObject({
      status: 'pending',
      slot: nextFree,
      reason: 'The chart did well in replies.',
      source: 'mcp',
      key_id: rw.id,
      post_id: null,
    });
    expect(proposed.text).toContain('Nothing is published or scheduled');
    const postsAfter = (await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=100`)).body.posts
      .length;
    expect(postsAfter).toBe(postsBefore);
    // The slot is now taken, so the next proposal on the channel gets a later one.
    const after = await ok(client, 'best_times', { brandId, platform: 'x' });
    expect(after.data.platforms[0].next_free.at > nextFree).toBe(true);
    expect(await fails(client, 'propose_post', { draftId: draft.id })).toContain('ALREADY_PROPOSED');
  });

  it('propose_post with proposedFor uses that slot', async () => {
    const idea = await ok(client, 'create_idea', { brandId, title: 'Standups in writing' });
    const [draft] = (await ok(client, 'draft_idea', { ideaId: idea.data.idea.id, platforms: ['linkedin'] }))
      .data.drafts;
    const when = new Date(svc.clock.now().getTime() + 3 * 86_400_000);
    when.setUTCMinutes(0, 0, 0);
    const proposed = await ok(client, 'propose_post', { draftId: draft.id, proposedFor: when.toISOString() });
    expect(proposed.data.approval.slot).toBe(when.toISOString());
    const past = await fails(client, 'propose_post', {
      draftId: draft.id,
      proposedFor: '2001-01-01T00:00:00Z',
    });
    expect(past).toMatch(/ALREADY_PROPOSED|SLOT_IN_PAST/);
  });

  it('add_knowledge, save_to_memory (a rule with evidence), add_canvas_note (right of everything)', async () => {
    const note = await ok(client, 'add_knowledge', {
      brandId,
      title: 'Pricing',
      body: 'Teams plan is $8 per seat.',
    });
    expect(note.data.note).toMatchObject({ title: 'Pricing', body: 'Teams plan is $8 per seat.' });
    const memory = await ok(client, 'get_brand_memory', { brandId });
    expect(memory.data.memory.knowledge.map((k: { id: string }) => k.id)).toContain(note.data.note.id);

    const post = (await ok(client, 'list_posts', { brandId, status: 'published', limit: 1 })).data.posts[0];
    const saved = await ok(client, 'save_to_memory', {
      brandId,
      from: post.id,
      as: 'do',
      note: 'Open with a number from our own data',
    });
    expect(saved.data.change).toMatchObject({ op: 'add', target: 'voice.do' });
    expect(saved.data.change.item.evidence[0]).toMatchObject({ kind: 'post', id: post.id });

    const campaign = (await ok(client, 'list_campaigns', { brandId })).data.campaigns[0];
    const canvas = await api(svc.url, 'GET', `/v1/campaigns/${campaign.id}/canvas`);
    const right = Math.max(...canvas.body.items.map((i: { x: number; w: number }) => i.x + i.w));
    const added = await ok(client, 'add_canvas_note', { campaignId: campaign.id, text: 'Try a carousel' });
    expect(added.data.note.x).toBeGreaterThan(right);
    expect(added.data.note.kind).toBe('note');
  });

  it('run_agent runs a built-in agent, recorded with source mcp and the key; get_agent_run reads it', async () => {
    const ran = await ok(client, 'run_agent', { agentId: 'weekly_plan', inputs: { brandId, count: 1 } });
    const run = ran.data.run;
    expect(run).toMatchObject({ agent_id: 'weekly_plan', status: 'succeeded', source: 'mcp', key_id: rw.id });
    expect(run.child_runs.length).toBeGreaterThan(0);
    expect(run.child_runs[0]).toMatchObject({ agent_id: 'voice_check', source: 'mcp' });
    expect(run.approvals.length).toBeGreaterThan(0);
    expect(run.approvals.every((a: { status: string }) => a.status === 'pending')).toBe(true);
    const read = await ok(client, 'get_agent_run', { runId: run.id });
    expect(read.data.run).toMatchObject({ id: run.id, steps: run.steps, key_id: rw.id });
    const digest = await ok(client, 'run_agent', { agentId: 'digest', inputs: { brandId } });
    expect(digest.data.run.status).toBe('succeeded');
  });
});

describe('errors a model can act on', () => {
  it('bad arguments and unknown ids are tool errors that say what to fix', async () => {
    expect(await fails(client, 'list_posts', { brandId, limit: 500 })).toMatch(/INVALID_ARGUMENTS.*'limit'/);
    expect(await fails(client, 'list_posts', {})).toMatch(/'brandId' is required/);
    expect(await fails(client, 'list_posts', { brandId, colour: 'red' })).toMatch(
      /unknown argument 'colour'/,
    );
    expect(await fails(client, 'draft_idea', { ideaId: 'x', platforms: ['myspace'] })).toMatch(/platforms/);
    expect(await fails(client, 'get_post', { postId: 'post_nope' })).toMatch(
      /NOT_FOUND: No post with id 'post_nope'.*list_posts/,
    );
    expect(await fails(client, 'get_brand_memory', { brandId: 'brd_nope' })).toMatch(/list_brands/);
    expect(await fails(client, 'list_approvals', { brandId: 'brd_nope' })).toMatch(/NOT_FOUND/);
    expect(await fails(client, 'get_agent_run', { runId: 'run_nope' })).toMatch(/NOT_FOUND/);
    expect(await fails(client, 'add_canvas_note', { campaignId: 'cmp_nope', text: 'x' })).toMatch(
      /list_campaigns/,
    );
    expect(await fails(client, 'run_agent', { agentId: 'weekly_plan', inputs: {} })).toMatch(
      /brandId.*list_agents/,
    );
    expect(await fails(client, 'run_agent', { agentId: 'publish_everything', inputs: {} })).toMatch(
      /agentId/,
    );
    expect(await fails(client, 'propose_post', { draftId: 'drf_1', proposedFor: 'tomorrow' })).toMatch(
      /proposedFor/,
    );
  });

  it('a brand with no digest yet is told which tool makes one', async () => {
    const b = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Empty' } });
    expect(await fails(client, 'get_digest', { brandId: b.body.id })).toContain('run_agent');
  });

  it('an unknown tool is a protocol error (it was never listed)', async () => {
    await expect(client.callTool({ name: 'publish_post', arguments: {} })).rejects.toThrow(/Unknown tool/);
    const log = await api(svc.url, 'GET', '/v1/mcp-calls?tool=publish_post');
    expect(log.body.mcp_calls[0]).toMatchObject({
      key_id: rw.id,
      outcome: 'error',
      error_code: 'UNKNOWN_TOOL',
    });
  });
});

describe('scopes', () => {
  it('a read-only key reads but cannot write, and is told which scope it lacks and which it has', async () => {
    const ro = await makeKey(svc, ['read']);
    const c = await connect(svc, ro.key);
    await ok(c, 'list_brands');
    const denied = await fails(c, 'create_idea', { brandId, title: 'Nope' });
    expect(denied).toContain("INSUFFICIENT_SCOPE: create_idea needs the 'write' scope; this key");
    expect(denied).toContain("has 'read'");
    await c.close();
  });

  it("a write-only key writes but cannot read: 'write' does not include 'read'", async () => {
    const wo = await makeKey(svc, ['write']);
    const c = await connect(svc, wo.key);
    await ok(c, 'create_idea', { brandId, title: 'Written blind' });
    const denied = await fails(c, 'list_posts', { brandId });
    expect(denied).toContain("list_posts needs the 'read' scope");
    expect(denied).toContain("has 'write'");
    expect(denied).toContain("'write' scope does not include 'read'");
    await expect(c.readResource({ uri: `service://brands/${brandId}/memory` })).rejects.toThrow(
      /'read' scope/,
    );
    expect((await c.listResources()).resources).toEqual([]);
    await c.close();
  });
});

describe('the Brand Memory resource', () => {
  it('is a template, listed per brand, and reads as JSON', async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({
        uriTemplate: 'service://brands/{brandId}/memory',
        mimeType: 'application/json',
      }),
    ]);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain(`service://brands/${brandId}/memory`);
    const read = await client.readResource({ uri: `service://brands/${brandId}/memory` });
    const content = read.contents[0] as { text: string; mimeType: string };
    expect(content.mimeType).toBe('application/json');
    const memory = JSON.parse(content.text);
    expect(memory).toHaveProperty('voice.banned_words');
    expect(memory).toHaveProperty('knowledge');
    await expect(client.readResource({ uri: 'service://brands/brd_nope/memory' })).rejects.toThrow(
      /No brand/,
    );
    await expect(client.readResource({ uri: 'service://elsewhere' })).rejects.toThrow(/Unknown resource/);
  });
});

describe('keys and the call log', () => {
  it('a revoked key is refused on the very next call', async () => {
    const k = await makeKey(svc, ['read']);
    const c = await connect(svc, k.key);
    await ok(c, 'list_agents');
    expect((await api(svc.url, 'DELETE', `/v1/api-keys/${k.id}`)).status).toBe(200);
    await expect(c.callTool({ name: 'list_agents', arguments: {} })).rejects.toThrow(/revoked/);
    await c.close().catch(() => undefined);
    const raw = await rawMcp(svc, { key: k.key, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('records every call with source, key, tool, arguments and outcome, and stamps last use', async () => {
    const k = await makeKey(svc, ['read']);
    const c = await connect(svc, k.key);
    await ok(c, 'list_posts', { brandId, limit: 1 });
    await fails(c, 'create_idea', { brandId, title: 'x' });
    await c.readResource({ uri: `service://brands/${brandId}/memory` });
    await c.close();
    const log = await api(svc.url, 'GET', `/v1/mcp-calls?key_id=${k.id}`);
    // The test clock stands still, so the three share a timestamp: compare by tool, not order.
    const byTool = Object.fromEntries(log.body.mcp_calls.map((e: { tool: string }) => [e.tool, e]));
    expect(Object.keys(byTool).sort()).toEqual(['create_idea', 'list_posts', 'resources/read']);
    expect(byTool.list_posts).toMatchObject({
      source: 'mcp',
      key_id: k.id,
      outcome: 'ok',
      args: { brandId, limit: 1 },
    });
    expect(byTool.create_idea).toMatchObject({ outcome: 'error', error_code: 'INSUFFICIENT_SCOPE' });
    expect(byTool['resources/read']).toMatchObject({
      outcome: 'ok',
      args: { uri: `service://brands/${brandId}/memory` },
    });
    const keys = await api(svc.url, 'GET', '/v1/api-keys');
    expect(keys.body.api_keys.find((x: { id: string }) => x.id === k.id).last_used_at).not.toBeNull();
  });

  it('every tool result, success or error, carried the mode label', async () => {
    const r = (await client.callTool({ name: 'list_agents', arguments: {} })) as CallToolResult;
    expect(text(r).startsWith(LABEL)).toBe(true);
  });
});
