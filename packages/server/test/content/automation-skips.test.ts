// An automation whose agent has nothing to do (repurpose_winner on a post that is not a winner)
// records a skipped fire and uses none of the daily caps. The sandbox clock drives the post events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService('content');
});
afterAll(() => svc.close());

const HOUR = 3_600_000;

/** Seven posts published now on the brand's X channel: against the median of the others, at least three cannot be winners. */
async function publishSeven(channelId: string) {
  const ids: string[] = [];
  for (let i = 0; i < 7; i++) {
    const res = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: channelId, text: `Post ${i}: what we learned from writing things down.` },
    });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  return ids;
}

const automation = async (id: string) => (await api(svc.url, 'GET', `/v1/automations/${id}`)).body;
const runsOf = async (automationId: string) =>
  (await api(svc.url, 'GET', '/v1/agent-runs?agent_id=repurpose_winner&limit=100')).body.agent_runs.filter(
    (r: any) => r.automation_id === automationId,
  );

describe('automations with nothing to do', () => {
  it('post.metrics_settled on non-winners is skipped and leaves the daily cap to the winners', async () => {
    const brand = await makeBrand(svc, { channels: ['x', 'linkedin'] });
    const auto = await api(svc.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.id,
        name: 'Repurpose winners',
        agent_id: 'repurpose_winner',
        trigger: { type: 'event', event: 'post.metrics_settled' },
        daily_cap: 1,
      },
    });
    expect(auto.status).toBe(201);
    const posts = await publishSeven(brand.channels.x as string);
    const publishedAt = Date.parse((await api(svc.url, 'GET', `/v1/posts/${posts[0]}`)).body.published_at);
    // Straight to the 72 h snapshot: every post settles in the last tick, so "today" is the day they settled.
    const moved = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', {
      body: { to: new Date(publishedAt + 72 * HOUR).toISOString() },
    });
    expect(moved.status).toBe(200);
    expect([...moved.body.settled].sort()).toEqual([...posts].sort());

    const verdicts = new Map<string, string>();
    for (const id of posts) verdicts.set(id, (await api(svc.url, 'GET', `/v1/posts/${id}`)).body.verdict);
    const winners = posts.filter((id) => verdicts.get(id) === 'outperforming');
    const others = posts.length - winners.length;
    expect(others).toBeGreaterThanOrEqual(3);

    const after = await automation(auto.body.id);
    expect(after.skipped_today).toBe(others);
    expect(after.runs_today).toBe(Math.min(winners.length, 1));
    const runs = await runsOf(auto.body.id);
    expect(runs).toHaveLength(after.runs_today);
    for (const r of runs) {
      const run = (await api(svc.url, 'GET', `/v1/agent-runs/${r.id}`)).body;
      expect(run.status).toBe('succeeded');
      expect(winners).toContain(run.inputs.postId);
    }
    if (winners.length === 0) {
      expect(after.last_fire).toMatchObject({
        outcome: 'skipped',
        trigger: 'post.metrics_settled',
        run_id: null,
      });
      expect(after.last_fire.message).toMatch(/^Skipped, nothing to do \(NOT_A_WINNER\): Post 'post_/);
    }
  });

  it('a manual run with nothing to do is a 409 with the reason, recorded as skipped, never capped', async () => {
    const brand = await makeBrand(svc, { channels: ['x'] });
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Too young to be a winner.' },
    });
    const auto = await api(svc.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.id,
        name: 'Repurpose this post',
        agent_id: 'repurpose_winner',
        inputs: { postId: post.body.id },
        trigger: { type: 'schedule', every: 'day', hour: 9 },
        daily_cap: 1,
      },
    });
    for (let i = 0; i < 3; i++) {
      const res = await api(svc.url, 'POST', `/v1/automations/${auto.body.id}/run`);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('NOT_A_WINNER');
      expect(res.body.error.message).toContain(`Post '${post.body.id}' is`);
    }
    const after = await automation(auto.body.id);
    expect(after).toMatchObject({ runs_today: 0, skipped_today: 3, last_run_at: null });
    expect(after.last_fire).toMatchObject({ trigger: 'manual', outcome: 'skipped', run_id: null });
    expect(await runsOf(auto.body.id)).toHaveLength(0);

    // The schedule trigger, driven by the sandbox clock, skips the same way.
    const moved = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { days: 2 } });
    const fired = moved.body.automations.filter((f: any) => f.automation_id === auto.body.id);
    expect(fired.length).toBeGreaterThanOrEqual(1);
    for (const f of fired)
      expect(f).toEqual({ automation_id: auto.body.id, outcome: 'skipped', run_id: null });
    expect(await runsOf(auto.body.id)).toHaveLength(0);
  });

  it('weekly_plan with no signals and no waiting ideas skips its schedule fires until there is something', async () => {
    const brand = await makeBrand(svc, { channels: ['x'] });
    const auto = await api(svc.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.id,
        name: 'Plan the week',
        agent_id: 'weekly_plan',
        inputs: { count: 1 },
        trigger: { type: 'schedule', every: 'day', hour: 7 },
        daily_cap: 1,
      },
    });
    const moved = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { days: 2 } });
    const fired = moved.body.automations.filter((f: any) => f.automation_id === auto.body.id);
    expect(fired.length).toBeGreaterThanOrEqual(1);
    for (const f of fired) expect(f.outcome).toBe('skipped');
    const manual = await api(svc.url, 'POST', `/v1/automations/${auto.body.id}/run`);
    expect(manual.status).toBe(409);
    expect(manual.body.error.code).toBe('NO_SIGNALS');
    expect(manual.body.error.message).toContain('nothing to plan');
    expect((await automation(auto.body.id)).runs_today).toBe(0);

    await api(svc.url, 'POST', '/v1/ideas', { body: { brand_id: brand.id, title: 'Meeting-free Fridays' } });
    const ran = await api(svc.url, 'POST', `/v1/automations/${auto.body.id}/run`);
    expect(ran.status).toBe(201);
    expect(ran.body.run.status).toBe('succeeded');
    expect((await automation(auto.body.id)).runs_today).toBe(1);
  });

  it('a direct run of the agent on a non-winner is still a recorded failed run', async () => {
    const brand = await makeBrand(svc, { channels: ['x'] });
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'Not a winner yet.' },
    });
    const run = await api(svc.url, 'POST', '/v1/agents/repurpose_winner/runs', {
      body: { inputs: { postId: post.body.id } },
    });
    expect(run.body.status).toBe('failed');
    expect(run.body.error.code).toBe('NOT_A_WINNER');
  });
});
