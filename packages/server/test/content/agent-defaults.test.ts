// A run records its inputs after defaults (docs/content/agents.md): every optional input an agent
// documents is in the recorded inputs, whether its default is fixed or depends on the brand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeDraft, makeIdea } from './helpers.js';

let svc: TestService;
let brand: { id: string; channels: Record<string, string> };
let required: Record<string, Record<string, string>>;

beforeAll(async () => {
  svc = await startTestService('content');
  brand = await makeBrand(svc, { channels: ['linkedin', 'x'] });
  const post = await api(svc.url, 'POST', '/v1/posts', {
    body: { channel_id: brand.channels.x, text: 'A post to repurpose, once it wins.' },
  });
  required = {
    weekly_plan: { brandId: brand.id },
    repurpose_winner: { postId: post.body.id },
    voice_check: { draftId: await makeDraft(svc, brand.id) },
    digest: { brandId: brand.id },
    voice_refresh: { brandId: brand.id },
  };
});
afterAll(() => svc.close());

const recorded = async (agent: string, inputs: Record<string, unknown>) => {
  const run = await api(svc.url, 'POST', `/v1/agents/${agent}/runs`, { body: { inputs } });
  expect(run.status, JSON.stringify(run.body)).toBe(201);
  return (await api(svc.url, 'GET', `/v1/agent-runs/${run.body.id}`)).body.inputs;
};

describe('agent runs record their inputs after defaults', () => {
  it('every documented optional input of every agent is in the recorded inputs', async () => {
    const agents = (await api(svc.url, 'GET', '/v1/agents')).body.agents;
    expect(Object.keys(required).sort()).toEqual(agents.map((a: any) => a.id).sort());
    for (const agent of agents) {
      const inputs = await recorded(agent.id, required[agent.id] as Record<string, string>);
      for (const doc of agent.inputs) expect(inputs[doc.name], `${agent.id}.${doc.name}`).not.toBeUndefined();
    }
  });

  it('records the defaults each agent documents', async () => {
    expect(await recorded('weekly_plan', { brandId: brand.id })).toEqual({
      brandId: brand.id,
      platforms: ['x', 'linkedin'],
      count: 3,
    });
    expect(await recorded('repurpose_winner', required.repurpose_winner as Record<string, string>)).toEqual({
      postId: required.repurpose_winner?.postId,
      platforms: ['linkedin'],
    });
    expect(await recorded('digest', { brandId: brand.id })).toEqual({ brandId: brand.id, days: 7 });
    expect(await recorded('voice_refresh', { brandId: brand.id })).toEqual({ brandId: brand.id, days: 56 });
  });

  it('keeps what was given instead of the default', async () => {
    expect(await recorded('weekly_plan', { brandId: brand.id, platforms: ['linkedin'], count: 1 })).toEqual({
      brandId: brand.id,
      platforms: ['linkedin'],
      count: 1,
    });
  });

  it('records defaults for runs an automation starts, too', async () => {
    const auto = await api(svc.url, 'POST', '/v1/automations', {
      body: {
        brand_id: brand.id,
        name: 'Plan',
        agent_id: 'weekly_plan',
        trigger: { type: 'schedule', every: 'day', hour: 6 },
      },
    });
    expect(auto.body.inputs).toEqual({ brandId: brand.id });
    await makeIdea(svc, brand.id, 'Something to plan');
    const ran = await api(svc.url, 'POST', `/v1/automations/${auto.body.id}/run`);
    expect(ran.status).toBe(201);
    expect(ran.body.run.inputs).toEqual({ brandId: brand.id, platforms: ['x', 'linkedin'], count: 3 });
  });
});
