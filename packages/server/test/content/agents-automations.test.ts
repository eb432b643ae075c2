import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordToolCall } from '../../src/content/services/mcp-calls.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { digestCappedAtTwo, makeBrand, makeDraft, makeIdea, makeSignal } from './helpers.js';

describe('agents on the demo brand', () => {
  let svc: TestService;
  let brandId: string;
  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
    brandId = (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id;
  });
  afterAll(() => svc.close());

  it('lists the five built-ins with inputs and steps', async () => {
    const res = await api(svc.url, 'GET', '/v1/agents');
    expect(res.body.agents.map((a: any) => a.id)).toEqual([
      'weekly_plan',
      'repurpose_winner',
      'voice_check',
      'digest',
      'voice_refresh',
    ]);
    const vc = await api(svc.url, 'GET', '/v1/agents/voice_check');
    expect(vc.body.makes_model_calls).toBe(false);
    expect((await api(svc.url, 'GET', '/v1/agents/nope')).status).toBe(404);
  });

  it('weekly_plan drafts, runs voice_check child runs and queues approvals; never publishes', async () => {
    const postsBefore = (await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&status=scheduled`)).body
      .posts.length;
    const run = await api(svc.url, 'POST', '/v1/agents/weekly_plan/runs', {
      body: { inputs: { brandId, platforms: ['x', 'linkedin'], count: 2 } },
    });
    expect(run.status).toBe(201);
    expect(run.body).toMatchObject({
      status: 'succeeded',
      source: 'app',
      person_id: 'person_local',
      key_id: null,
    });
    expect(run.body.steps.map((s: any) => s.name)).toEqual([
      'read_last_week',
      'find_open_slots',
      'suggest_ideas',
      'draft',
      'voice_check',
      'queue_approvals',
    ]);
    for (const s of run.body.steps) expect(typeof s.duration_ms).toBe('number');
    expect(run.body.child_runs).toHaveLength(4);
    expect(
      run.body.child_runs.every((c: any) => c.agent_id === 'voice_check' && c.parent_run_id === run.body.id),
    ).toBe(true);
    expect(run.body.approvals).toHaveLength(4);
    expect(run.body.approvals.every((a: any) => a.status === 'pending')).toBe(true);
    const read = await api(svc.url, 'GET', `/v1/agent-runs/${run.body.id}`);
    expect(read.body.approvals).toHaveLength(4);
    const approval = await api(svc.url, 'GET', `/v1/approvals/${run.body.approvals[0].id}`);
    expect(approval.body.run_id).toBe(run.body.id);
    expect(
      (await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&status=scheduled`)).body.posts.length,
    ).toBe(postsBefore);
    const list = await api(svc.url, 'GET', '/v1/agent-runs?agent_id=weekly_plan');
    expect(list.body.agent_runs[0].id).toBe(run.body.id);
  });

  it('weekly_plan plans from ideas waiting in the Idea column when there are no signals', async () => {
    const brand = await makeBrand(svc);
    const run = () =>
      api(svc.url, 'POST', '/v1/agents/weekly_plan/runs', {
        body: { inputs: { brandId: brand.id, count: 1 } },
      });
    const empty = await run();
    expect(empty.body.status).toBe('failed');
    expect(empty.body.error.code).toBe('NO_SIGNALS');
    const waiting = await makeIdea(svc, brand.id, 'Meeting-free Fridays');
    const planned = await run();
    expect(planned.body.status).toBe('succeeded');
    expect(planned.body.steps.find((s: any) => s.name === 'suggest_ideas').detail).toMatch(/1 waiting ideas/);
    expect(planned.body.approvals.length).toBeGreaterThan(0);
    expect((await api(svc.url, 'GET', `/v1/ideas/${waiting}`)).body.status).not.toBe('idea');
  });

  it('repurpose_winner drafts an outperforming post for the other platforms; refuses a loser as a failed run', async () => {
    const posts = (await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&status=published&limit=100`)).body
      .posts;
    const winner = posts.find((p: any) => p.verdict === 'outperforming');
    const loser = posts.find((p: any) => p.verdict === 'underperforming');
    const run = await api(svc.url, 'POST', '/v1/agents/repurpose_winner/runs', {
      body: { inputs: { postId: winner.id } },
    });
    expect(run.body.status).toBe('succeeded');
    const drafts = run.body.output.drafts as string[];
    expect(drafts).toHaveLength(1);
    const d = await api(svc.url, 'GET', `/v1/drafts/${drafts[0]}`);
    expect(d.body.platform).not.toBe(winner.platform);
    const failed = await api(svc.url, 'POST', '/v1/agents/repurpose_winner/runs', {
      body: { inputs: { postId: loser.id } },
    });
    expect(failed.body.status).toBe('failed');
    expect(failed.body.error.code).toBe('NOT_A_WINNER');
    expect(failed.body.steps[0].status).toBe('failed');
  });

  it('voice_check makes no model call and reports each check', async () => {
    const draftId = await makeDraft(svc, brandId, 'x', 'A synergy of notes and decisions #a #b #c');
    const run = await api(svc.url, 'POST', '/v1/agents/voice_check/runs', { body: { inputs: { draftId } } });
    const byId = Object.fromEntries(run.body.output.checks.map((c: any) => [c.id, c.status]));
    expect(byId).toMatchObject({ banned_words: 'fail', hashtags: 'warn', length: 'pass' });
    expect(run.body.output.passed).toBe(false);
  });

  it('digest cites posts and signals; POST generates a new latest one', async () => {
    const before = await api(svc.url, 'GET', `/v1/brands/${brandId}/digest`);
    const made = await api(svc.url, 'POST', `/v1/brands/${brandId}/digest`, { body: { days: 14 } });
    expect(made.status).toBe(201);
    expect(made.body.id).not.toBe(before.body.id);
    expect(made.body.run_id).toMatch(/^run_/);
    for (const list of ['wins', 'misses', 'patterns', 'recommendations'])
      for (const item of made.body[list])
        expect(item.post_ids.length + item.signal_ids.length, item.text).toBeGreaterThan(0);
    expect((await api(svc.url, 'GET', `/v1/brands/${brandId}/digest`)).body.id).toBe(made.body.id);
  });

  it('voice_refresh proposes memory changes with why, lift and evidence; a person applies or dismisses', async () => {
    const run = await api(svc.url, 'POST', '/v1/agents/voice_refresh/runs', {
      body: { inputs: { brandId } },
    });
    expect(run.body.status).toBe('succeeded');
    const list = await api(svc.url, 'GET', `/v1/memory-proposals?brand_id=${brandId}`);
    // The manual clock never moves, so other proposals can share this run's timestamp: pick ours.
    const mine = list.body.memory_proposals.filter((p: any) => p.run_id === run.body.id);
    expect(mine.length).toBeGreaterThan(0);
    const [first, second] = mine;
    expect(first).toMatchObject({ status: 'pending', run_id: run.body.id });
    expect(first.why).toMatch(/×/);
    expect(first.evidence.length).toBeGreaterThan(0);
    const applied = await api(svc.url, 'POST', `/v1/memory-proposals/${first.id}/apply`);
    expect(applied.body.status).toBe('applied');
    const memory = await api(svc.url, 'GET', `/v1/brands/${brandId}/memory`);
    const target = first.change.target === 'voice.do' ? memory.body.voice.do : memory.body.voice.avoid;
    const rule = target.find((r: any) => r.text === first.change.text);
    expect(rule.evidence[0]).toMatchObject({ kind: 'post', id: first.evidence[0].post_id });
    expect((await api(svc.url, 'POST', `/v1/memory-proposals/${first.id}/dismiss`)).body.error.code).toBe(
      'PROPOSAL_DECIDED',
    );
    if (second)
      expect((await api(svc.url, 'POST', `/v1/memory-proposals/${second.id}/dismiss`)).body.status).toBe(
        'dismissed',
      );
    const again = await api(svc.url, 'POST', '/v1/agents/voice_refresh/runs', {
      body: { inputs: { brandId } },
    });
    expect(again.body.output.proposals).not.toContain(first.id);
    const counts = (await api(svc.url, 'GET', '/v1/memory-proposals')).body.counts;
    expect(counts.applied).toBe(1);
  });

  it('validates agent inputs before recording a run', async () => {
    const before = (await api(svc.url, 'GET', '/v1/agent-runs?limit=100')).body.agent_runs.length;
    const bad = await api(svc.url, 'POST', '/v1/agents/weekly_plan/runs', {
      body: { inputs: { brandId, platforms: ['fax'] } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.param).toBe('inputs.platforms.0');
    expect(
      (await api(svc.url, 'POST', '/v1/agents/weekly_plan/runs', { body: { inputs: {} } })).body.error
        .message,
    ).toMatch(/brandId/);
    expect(
      (await api(svc.url, 'POST', '/v1/agents/weekly_plan/runs', { body: { inputs: { brandId: 'brd_no' } } }))
        .status,
    ).toBe(404);
    expect(
      (await api(svc.url, 'POST', '/v1/agents/digest/runs', { body: { inputs: { brandId, extra: 1 } } }))
        .status,
    ).toBe(400);
    expect((await api(svc.url, 'POST', '/v1/agents/digest/runs', { body: { brandId } })).status).toBe(400);
    expect((await api(svc.url, 'GET', '/v1/agent-runs?limit=100')).body.agent_runs.length).toBe(before);
    expect((await api(svc.url, 'GET', '/v1/agent-runs/run_missing')).status).toBe(404);
  });
});

describe('automations', () => {
  let svc: TestService;
  let brand: { id: string; channels: Record<string, string> };
  beforeAll(async () => {
    svc = await startTestService('content');
    brand = await makeBrand(svc);
    await makeSignal(svc, brand.id);
  });
  afterAll(() => svc.close());

  it('CRUD with validation', async () => {
    const created = await api(svc.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.id,
        name: 'Daily digest',
        agent_id: 'digest',
        trigger: { type: 'schedule', every: 'day', hour: 9 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      daily_cap: 3,
      enabled: true,
      runs_today: 0,
      inputs: { brandId: brand.id },
    });
    expect(new Date(created.body.next_run_at).getHours()).toBe(9);
    const patched = await api(svc.url, 'PATCH', `/v1/automations/${created.body.id}`, {
      body: { enabled: false, daily_cap: 5 },
    });
    expect(patched.body).toMatchObject({ enabled: false, daily_cap: 5 });
    expect((await api(svc.url, 'GET', '/v1/automations')).body.automations).toHaveLength(1);
    const bad: unknown[] = [
      {
        brand_id: brand.id,
        name: 'x',
        agent_id: 'nope',
        trigger: { type: 'event', event: 'post.published' },
      },
      {
        brand_id: brand.id,
        name: 'x',
        agent_id: 'digest',
        trigger: { type: 'event', event: 'post.deleted' },
      },
      {
        brand_id: brand.id,
        name: 'x',
        agent_id: 'digest',
        trigger: { type: 'schedule', every: 'week', hour: 9 },
      },
      {
        brand_id: brand.id,
        name: 'x',
        agent_id: 'digest',
        trigger: { type: 'schedule', every: 'day', hour: 24 },
      },
      {
        brand_id: brand.id,
        name: 'x',
        agent_id: 'digest',
        trigger: { type: 'schedule', every: 'day', hour: 9 },
        daily_cap: 0,
      },
      {
        brand_id: brand.id,
        name: 'x',
        agent_id: 'voice_check',
        trigger: { type: 'schedule', every: 'day', hour: 9 },
      },
      {
        brand_id: brand.id,
        name: 'x',
        agent_id: 'digest',
        inputs: { days: 99 },
        trigger: { type: 'schedule', every: 'day', hour: 9 },
      },
    ];
    for (const body of bad)
      expect((await api(svc.url, 'POST', '/v1/automations', { body })).status).toBe(400);
    expect(
      (await api(svc.url, 'POST', '/v1/automations', { body: { ...(bad[1] as object), brand_id: 'brd_no' } }))
        .status,
    ).toBe(400);
    expect((await api(svc.url, 'GET', '/v1/automations')).body.automations).toHaveLength(1);
    expect((await api(svc.url, 'DELETE', `/v1/automations/${created.body.id}`)).body.deleted).toBe(true);
    expect((await api(svc.url, 'GET', `/v1/automations/${created.body.id}`)).status).toBe(404);
  });

  it('enforces the daily cap per automation on manual runs, and resets the next day', async () => {
    const a = await api(svc.url, 'POST', '/v1/automations', {
      body: digestCappedAtTwo(brand.id),
    });
    const run1 = await api(svc.url, 'POST', `/v1/automations/${a.body.id}/run`);
    expect(run1.status).toBe(201);
    expect(run1.body.run).toMatchObject({
      source: 'automation',
      automation_id: a.body.id,
      status: 'succeeded',
    });
    expect((await api(svc.url, 'POST', `/v1/automations/${a.body.id}/run`)).status).toBe(201);
    const capped = await api(svc.url, 'POST', `/v1/automations/${a.body.id}/run`);
    expect(capped.status).toBe(429);
    expect(capped.body.error.code).toBe('DAILY_CAP_REACHED');
    const retryAfter = Number(capped.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(24 * 60 * 60);
    expect((await api(svc.url, 'GET', `/v1/automations/${a.body.id}`)).body.runs_today).toBe(2);
    await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { days: 1 } });
    expect((await api(svc.url, 'POST', `/v1/automations/${a.body.id}/run`)).status).toBe(201);
    await api(svc.url, 'DELETE', `/v1/automations/${a.body.id}`);
  });

  it('fires schedule automations as the sandbox clock passes their time', async () => {
    const a = await api(svc.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.id,
        name: 'Morning digest',
        agent_id: 'digest',
        trigger: { type: 'schedule', every: 'day', hour: 7 },
      },
    });
    const moved = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { days: 2 } });
    const fired = moved.body.automations.filter((f: any) => f.automation_id === a.body.id);
    expect(fired).toHaveLength(2);
    expect(fired.every((f: any) => f.outcome === 'succeeded')).toBe(true);
    const after = await api(svc.url, 'GET', `/v1/automations/${a.body.id}`);
    expect(Date.parse(after.body.next_run_at)).toBeGreaterThan(Date.parse(moved.body.now));
    await api(svc.url, 'DELETE', `/v1/automations/${a.body.id}`);
  });

  it('runs on post.published and post.metrics_settled, with the post as input', async () => {
    const onPublish = await api(svc.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.id,
        name: 'Check digest',
        agent_id: 'digest',
        trigger: { type: 'event', event: 'post.published' },
      },
    });
    const onSettle = await api(svc.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.id,
        name: 'Repurpose',
        agent_id: 'repurpose_winner',
        trigger: { type: 'event', event: 'post.metrics_settled' },
      },
    });
    expect((await api(svc.url, 'POST', `/v1/automations/${onSettle.body.id}/run`)).body.error.code).toBe(
      'NEEDS_EVENT',
    );
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'An event-driven post.' },
    });
    const runs = await api(svc.url, 'GET', '/v1/agent-runs?agent_id=digest&limit=100');
    const byEvent = runs.body.agent_runs.filter((r: any) => r.automation_id === onPublish.body.id);
    expect(byEvent).toHaveLength(1);
    expect(byEvent[0].source).toBe('automation');
    svc.clock.advance(2 * 3_600_000); // resolve needs a first snapshot (1 h after publishing)
    await api(svc.url, 'POST', `/v1/posts/${post.body.id}/resolve`);
    // The post is no winner: the fire is skipped, not run (winners: automation-skips.test.ts).
    const settled = await api(svc.url, 'GET', `/v1/automations/${onSettle.body.id}`);
    expect(settled.body.last_fire).toMatchObject({ trigger: 'post.metrics_settled', outcome: 'skipped' });
    expect(settled.body.runs_today).toBe(0);
  });

  it('enforces the workspace cap of 20 runs a day', async () => {
    await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { days: 1 } });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++)
      ids.push(
        (
          await api(svc.url, 'POST', '/v1/automations', {
            body: {
              brand_id: brand.id,
              name: `A${i}`,
              agent_id: 'digest',
              daily_cap: 3,
              trigger: { type: 'schedule', every: 'week', weekday: 0, hour: 2 },
            },
          })
        ).body.id,
      );
    const statuses: number[] = [];
    for (const id of ids)
      for (let i = 0; i < 3; i++)
        statuses.push((await api(svc.url, 'POST', `/v1/automations/${id}/run`)).status);
    const ran = statuses.filter((s) => s === 201).length;
    expect(ran).toBeLessThanOrEqual(20);
    expect(statuses.filter((s) => s === 429).length).toBe(24 - ran);
    const last = await api(svc.url, 'POST', `/v1/automations/${ids[7]}/run`);
    expect(last.body.error.message).toMatch(/daily cap/);
  });
});

describe('campaigns, canvas, mode and the MCP call log', () => {
  let svc: TestService;
  let brandId: string;
  beforeAll(async () => {
    svc = await startTestService('content');
    brandId = (await makeBrand(svc, { channels: [] })).id;
  });
  afterAll(() => svc.close());

  it('places each sticky note to the right of everything on the canvas', async () => {
    const c = await api(svc.url, 'POST', '/v1/campaigns', {
      body: { brand_id: brandId, name: 'Spring', starts_on: '2026-03-01', ends_on: '2026-03-31' },
    });
    expect(c.status).toBe(201);
    const n1 = await api(svc.url, 'POST', `/v1/campaigns/${c.body.id}/canvas/notes`, {
      body: { text: 'first' },
    });
    expect(n1.body).toMatchObject({ x: 0, y: 0, w: 200, h: 160, color: 'yellow' });
    const n2 = await api(svc.url, 'POST', `/v1/campaigns/${c.body.id}/canvas/notes`, {
      body: { text: 'second', color: 'blue' },
    });
    expect(n2.body.x).toBe(240);
    await api(svc.url, 'PATCH', `/v1/campaigns/${c.body.id}/canvas/items/${n1.body.id}`, {
      body: { x: 1000, y: 300, w: 400 },
    });
    const n3 = await api(svc.url, 'POST', `/v1/campaigns/${c.body.id}/canvas/notes`, {
      body: { text: 'third' },
    });
    expect(n3.body).toMatchObject({ x: 1440, y: 300 });
    const canvas = await api(svc.url, 'GET', `/v1/campaigns/${c.body.id}/canvas`);
    for (const item of canvas.body.items.filter((i: any) => i.id !== n3.body.id))
      expect(n3.body.x).toBeGreaterThanOrEqual(item.x + item.w);
    expect(
      (await api(svc.url, 'DELETE', `/v1/campaigns/${c.body.id}/canvas/items/${n2.body.id}`)).body.deleted,
    ).toBe(true);
    expect(
      (await api(svc.url, 'POST', `/v1/campaigns/${c.body.id}/canvas/notes`, { body: { text: '' } })).status,
    ).toBe(400);
    expect(
      (await api(svc.url, 'POST', '/v1/campaigns/cmp_no/canvas/notes', { body: { text: 'x' } })).status,
    ).toBe(404);
    expect((await api(svc.url, 'GET', `/v1/campaigns/${c.body.id}/canvas`)).body.items).toHaveLength(2);
  });

  it('campaign CRUD, newest first, with validation', async () => {
    const a = await api(svc.url, 'POST', '/v1/campaigns', { body: { brand_id: brandId, name: 'A' } });
    svc.clock.advance(1000);
    const b = await api(svc.url, 'POST', '/v1/campaigns', { body: { brand_id: brandId, name: 'B' } });
    const list = await api(svc.url, 'GET', `/v1/campaigns?brand_id=${brandId}`);
    expect(list.body.campaigns[0].id).toBe(b.body.id);
    expect(
      (
        await api(svc.url, 'PATCH', `/v1/campaigns/${a.body.id}`, {
          body: { starts_on: '2026-05-01', ends_on: '2026-04-01' },
        })
      ).body.error.code,
    ).toBe('INVALID_DATES');
    expect(
      (await api(svc.url, 'PATCH', `/v1/campaigns/${a.body.id}`, { body: { goal: 'Reach' } })).body.goal,
    ).toBe('Reach');
    expect(
      (
        await api(svc.url, 'POST', '/v1/campaigns', {
          body: { brand_id: brandId, name: 'C', starts_on: 'soon' },
        })
      ).status,
    ).toBe(400);
    expect((await api(svc.url, 'DELETE', `/v1/campaigns/${a.body.id}`)).body.deleted).toBe(true);
    expect((await api(svc.url, 'GET', `/v1/campaigns/${a.body.id}`)).status).toBe(404);
  });

  it('reports the mode with its label', async () => {
    const res = await api(svc.url, 'GET', '/v1/mode');
    expect(res.body).toEqual({
      mode: 'sandbox',
      model: 'simulated',
      label: '(sandbox · simulated)',
      publishing: 'simulated',
      model_ready: true,
      sandbox_clock: true,
    });
  });

  it('lists MCP calls recorded through recordToolCall, redacting secrets', async () => {
    const ctx = (svc.handle as any).ctx;
    await recordToolCall(ctx, {
      keyId: 'key_1',
      tool: 'list_posts',
      args: { brandId, api_key: 'svc_x' },
      outcome: 'ok',
      durationMs: 3,
    });
    svc.clock.advance(1000);
    await recordToolCall(ctx, {
      keyId: 'key_2',
      tool: 'get_post',
      args: { postId: 'post_x' },
      outcome: 'error',
      errorCode: 'NOT_FOUND',
      errorMessage: 'No post',
    });
    const all = await api(svc.url, 'GET', '/v1/mcp-calls');
    expect(all.body.mcp_calls.map((c: any) => c.tool)).toEqual(['get_post', 'list_posts']);
    expect(all.body.mcp_calls[1].args).toEqual({ brandId, api_key: '[redacted]' });
    const one = await api(svc.url, 'GET', '/v1/mcp-calls?key_id=key_2');
    expect(one.body.mcp_calls[0]).toMatchObject({ source: 'mcp', outcome: 'error', error_code: 'NOT_FOUND' });
  });

  it('publishes every group in the OpenAPI document', async () => {
    const doc = await api(svc.url, 'GET', '/v1/openapi.json');
    for (const path of [
      '/v1/brands/{id}/memory/save',
      '/v1/ideas/generate',
      '/v1/drafts/{id}/rewrite',
      '/v1/posts/{id}/resolve',
      '/v1/approvals/bulk',
      '/v1/agents/{id}/runs',
      '/v1/agent-runs/{id}',
      '/v1/automations/{id}/run',
      '/v1/insights/overview',
      '/v1/brands/{id}/digest',
      '/v1/brands/{id}/outcomes',
      '/v1/brands/{id}/signals',
      '/v1/brands/{id}/channels/connect',
      '/v1/campaigns/{id}/canvas/notes',
      '/v1/memory-proposals/{id}/apply',
      '/v1/sandbox/clock/advance',
      '/v1/mode',
      '/v1/mcp-calls',
    ])
      expect(doc.body.paths[path], path).toBeDefined();
    expect(doc.body.components.schemas.Brand).toBeDefined();
  });
});
