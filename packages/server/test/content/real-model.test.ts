import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createContentModel } from '../../src/content/model/index.js';
import type { ContentModel, VoiceInput } from '../../src/content/model/types.js';
import { AppError } from '../../src/platform/errors.js';
import { type ChatRequest, type OpenAiFake, startOpenAiFake } from '../fakes/openai-fake.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeIdea, makeSignal } from './helpers.js';

/** What a well-behaved model answers: a post for drafts and rewrites, ideas citing the signals sent. */
function respond(req: ChatRequest): string {
  const prompt = req.messages.map((m) => m.content).join('\n');
  if (/Suggest \d+ post ideas/.test(prompt)) {
    const ids = [...prompt.matchAll(/- id (\S+) \(/g)].map((m) => m[1]);
    return JSON.stringify({
      ideas: [
        ...ids.map((id, i) => ({
          title: `Idea ${i + 1} from ${id}`,
          angle: 'A how-to for team leads',
          notes: 'Use the numbers from the survey.',
          signal_id: id,
        })),
        { title: 'Made-up citation', angle: '', notes: '', signal_id: 'sig_not_sent' },
      ],
    });
  }
  return JSON.stringify({
    parts: ['Async standups saved our team 40 minutes a day. Here is how we run them.'],
  });
}

const voice: VoiceInput = {
  brandName: 'Fieldnote',
  summary: 'Plain and practical.',
  do: ['Lead with an example'],
  avoid: ['Hype'],
  bannedWords: ['synergy'],
  styleRules: ['No exclamation marks'],
  audiences: ['Team leads'],
  products: ['Fieldnote'],
  examplePosts: ['We cut our weekly meeting to 12 minutes.'],
  knowledge: [{ title: 'Survey', body: '62% of leads prefer async check-ins.' }],
};
const idea = { title: 'Async standups in practice', angle: 'A how-to', notes: 'Mention the survey.' };

async function failure(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

describe('real model adapter against an OpenAI-compatible fake', () => {
  let fake: OpenAiFake;
  let model: ContentModel;
  const make = (f: OpenAiFake, extra: { apiKey?: string; timeoutMs?: number; maxRetries?: number } = {}) =>
    createContentModel(
      {
        model: 'real',
        realModel: {
          baseUrl: f.baseUrl,
          name: 'test-model',
          ...(extra.apiKey ? { apiKey: extra.apiKey } : {}),
        },
      },
      { retryBaseMs: 1, timeoutMs: extra.timeoutMs ?? 5_000, maxRetries: extra.maxRetries ?? 2 },
    );

  beforeAll(async () => {
    fake = await startOpenAiFake({ respond, apiKey: 'sk-test' });
    model = make(fake, { apiKey: 'sk-test' });
  });
  afterEach(() => {
    // Every request the adapter sent followed the published contract.
    expect(fake.violations).toEqual([]);
  });
  afterAll(() => fake.close());

  it('drafts with a strict json_schema response format built from Brand Memory and the platform', async () => {
    const before = fake.requests.length;
    const out = await model.draft({ voice, platform: 'x', idea });
    expect(out.parts).toEqual(['Async standups saved our team 40 minutes a day. Here is how we run them.']);
    expect(out.usage?.total_tokens).toBeGreaterThan(0);
    const req = fake.requests[before] as ChatRequest;
    expect(req.model).toBe('test-model');
    expect(req.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'post', strict: true },
    });
    const system = req.messages[0]?.content ?? '';
    for (const fact of [
      'Fieldnote',
      'synergy',
      'No exclamation marks',
      '62% of leads',
      'at most 280 characters',
      'Team leads',
    ]) {
      expect(system).toContain(fact);
    }
  });

  it('keeps only ideas that cite a signal it was given', async () => {
    const ideas = await model.suggestIdeas({
      voice,
      signals: [{ id: 'sig_a', kind: 'trend', title: 'Async standups', summary: 'Trending' }],
      count: 3,
      existingTitles: [],
    });
    expect(ideas).toEqual([
      {
        title: 'Idea 1 from sig_a',
        angle: 'A how-to for team leads',
        notes: 'Use the numbers from the survey.',
        signalId: 'sig_a',
      },
    ]);
  });

  it('retries a malformed answer once, telling the model what did not fit', async () => {
    const before = fake.requests.length;
    fake.queue({ kind: 'content', content: '{"text": "not the schema"}' });
    const out = await model.rewrite({
      voice,
      platform: 'linkedin',
      parts: ['Old text.'],
      instruction: 'shorter',
    });
    expect(out.parts).toHaveLength(1);
    expect(fake.requests.length - before).toBe(2);
    const retry = fake.requests.at(-1) as ChatRequest;
    expect(retry.messages.at(-1)?.content).toMatch(/does not fit the required JSON schema \(parts/);
  });

  it('fails with MODEL_BAD_OUTPUT when the answer does not fit twice', async () => {
    fake.queue(
      { kind: 'content', content: 'Sure! Here is your post.' },
      { kind: 'content', content: '{"parts": []}' },
    );
    const err = await failure(model.draft({ voice, platform: 'x', idea }));
    expect(err.code).toBe('MODEL_BAD_OUTPUT');
    expect(err.message).toMatch(/did not fit its schema twice: parts/);
  });

  it('refuses a post longer than the platform allows instead of cutting it', async () => {
    fake.queue({ kind: 'content', content: JSON.stringify({ parts: ['x'.repeat(281)] }) });
    const err = await failure(model.draft({ voice, platform: 'x', idea }));
    expect(err.code).toBe('MODEL_BAD_OUTPUT');
    expect(err.message).toContain('x allows 280');
  });

  it('waits as a 429 asks, then succeeds', async () => {
    const before = fake.requests.length;
    fake.queue({ kind: 'status', status: 429, headers: { 'retry-after-ms': '20' } });
    const out = await model.draft({ voice, platform: 'threads', idea });
    expect(out.parts.length).toBeGreaterThan(0);
    expect(fake.requests.length - before).toBe(2);
  });

  it('gives up on a rate limit after its retries with MODEL_RATE_LIMITED and Retry-After', async () => {
    const limited = { kind: 'status', status: 429, headers: { 'retry-after': '0' } } as const;
    fake.queue(limited, limited, limited);
    const err = await failure(model.draft({ voice, platform: 'x', idea }));
    expect(err.code).toBe('MODEL_RATE_LIMITED');
    expect(err.status).toBe(503);
    expect(err.headers?.['Retry-After']).toBeDefined();
  });

  it('says the key is wrong when the server refuses it', async () => {
    const wrong = make(fake, { apiKey: 'sk-wrong' });
    const err = await failure(wrong.draft({ voice, platform: 'x', idea }));
    expect(err.code).toBe('MODEL_AUTH_FAILED');
    expect(err.message).toContain('SERVICE_MODEL_API_KEY');
  });

  it('times out a server that never answers, retries, then says it is unavailable', async () => {
    // 1 s, not less: each attempt must reach the fake (read, checked against the OpenAI document,
    // counted) before its own timeout, and under CI's load 150 ms once was not enough (one
    // request counted of two).
    const hanging = make(fake, { apiKey: 'sk-test', timeoutMs: 1_000, maxRetries: 1 });
    const before = fake.requests.length;
    fake.queue({ kind: 'hang' }, { kind: 'hang' });
    const err = await failure(hanging.draft({ voice, platform: 'x', idea }));
    expect(err.code).toBe('MODEL_UNAVAILABLE');
    expect(err.message).toMatch(/no answer within 1 s/);
    expect(fake.requests.length - before).toBe(2);
  });
});

describe('a server without json_schema (older Ollama)', () => {
  let fake: OpenAiFake;
  beforeAll(async () => {
    fake = await startOpenAiFake({ respond, rejectJsonSchema: true });
  });
  afterAll(() => fake.close());

  it('falls back to JSON mode with the schema in the prompt, and stays there', async () => {
    const model = createContentModel(
      { model: 'real', realModel: { baseUrl: fake.baseUrl, name: 'llama3.1' } },
      { retryBaseMs: 1 },
    );
    const first = await model.draft({ voice, platform: 'x', idea });
    expect(first.parts).toHaveLength(1);
    await model.draft({ voice, platform: 'linkedin', idea });
    expect(fake.requests.map((r) => r.response_format?.type)).toEqual([
      'json_schema',
      'json_object',
      'json_object',
    ]);
    expect(fake.requests[1]?.messages[0]?.content).toContain('It must match this JSON Schema');
    expect(fake.violations).toEqual([]);
  });
});

type Step = { name: string; status: string; usage: { total_tokens: number } | null };
const sum = (list: { prompt_tokens: number; completion_tokens: number; total_tokens: number }[]) =>
  list.reduce(
    (t, u) => ({
      prompt_tokens: t.prompt_tokens + u.prompt_tokens,
      completion_tokens: t.completion_tokens + u.completion_tokens,
      total_tokens: t.total_tokens + u.total_tokens,
    }),
    { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  );

describe('the content service with SERVICE_MODEL=real', () => {
  let fake: OpenAiFake;
  let svc: TestService;
  beforeAll(async () => {
    fake = await startOpenAiFake({ respond });
    svc = await startTestService('content', {
      config: { model: 'real', realModel: { baseUrl: fake.baseUrl, name: 'test-model' } },
    });
  });
  afterAll(async () => {
    await svc.close();
    await fake.close();
  });

  it('drafts and suggests ideas through the real model over HTTP, and says the model is ready', async () => {
    const brand = await makeBrand(svc);
    const drafts = await api(svc.url, 'POST', '/v1/drafts/generate', {
      body: { idea_id: await makeIdea(svc, brand.id), platforms: ['x'] },
    });
    expect(drafts.status).toBe(201);
    expect(JSON.stringify(drafts.body)).toContain('Async standups saved our team 40 minutes a day.');
    const signal = await makeSignal(svc, brand.id);
    const ideas = await api(svc.url, 'POST', '/v1/ideas/generate', {
      body: { brand_id: brand.id, count: 1 },
    });
    expect(ideas.status).toBe(201);
    expect(ideas.body.ideas[0]).toMatchObject({ title: `Idea 1 from ${signal}` });
    const mode = await api(svc.url, 'GET', '/v1/mode');
    expect(mode.body).toMatchObject({ model: 'real', model_ready: true });
    expect(fake.violations).toEqual([]);
  });

  it('answers a model that breaks its schema with a clear 502 in the error shape', async () => {
    const brand = await makeBrand(svc);
    fake.queue({ kind: 'content', content: 'nope' }, { kind: 'content', content: 'still nope' });
    const res = await api(svc.url, 'POST', '/v1/drafts/generate', {
      body: { idea_id: await makeIdea(svc, brand.id), platforms: ['x'] },
    });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'MODEL_BAD_OUTPUT' });
    expect(res.body.error.request_id).toBe(res.headers.get('service-request-id'));
  });

  it("weekly_plan writes with the real model and records each step's token usage", async () => {
    const brand = await makeBrand(svc, { channels: ['x'] });
    await makeSignal(svc, brand.id);
    const before = fake.usage.length;
    const run = await api(svc.url, 'POST', '/v1/agents/weekly_plan/runs', {
      body: { inputs: { brandId: brand.id, platforms: ['x'], count: 1 } },
    });
    expect(run.status).toBe(201);
    expect(run.body.status).toBe('succeeded');
    const steps = run.body.steps as Step[];
    const byName = Object.fromEntries(steps.map((s) => [s.name, s]));
    // One call suggests the idea, one drafts it: each step records exactly what its calls spent.
    const [ideas, draft] = fake.usage.slice(before);
    expect(fake.usage.length - before).toBe(2);
    expect(byName.suggest_ideas?.usage).toEqual(ideas);
    expect(byName.draft?.usage).toEqual(draft);
    // Steps without model calls record none, and so do voice_check child runs (no model calls).
    expect(byName.read_last_week?.usage).toBeNull();
    expect(byName.queue_approvals?.usage).toBeNull();
    for (const child of run.body.child_runs) for (const s of child.steps) expect(s.usage).toBeNull();
    const approval = await api(svc.url, 'GET', `/v1/approvals/${run.body.approvals[0].id}`);
    expect(JSON.stringify(approval.body.draft)).toContain('Async standups saved our team 40 minutes a day.');
    // The same run read back later carries the same usage.
    const read = await api(svc.url, 'GET', `/v1/agent-runs/${run.body.id}`);
    expect(read.body.steps).toEqual(run.body.steps);
    expect(fake.violations).toEqual([]);
  });

  it('fails the run when the answer does not fit twice, recording the error and the tokens spent', async () => {
    const brand = await makeBrand(svc, { channels: ['x'] });
    await makeSignal(svc, brand.id);
    const before = fake.usage.length;
    fake.queue({ kind: 'content', content: '{"ideas": "not a list"}' }, { kind: 'content', content: 'nope' });
    const run = await api(svc.url, 'POST', '/v1/agents/weekly_plan/runs', {
      body: { inputs: { brandId: brand.id, platforms: ['x'], count: 1 } },
    });
    expect(run.status).toBe(201);
    expect(run.body.status).toBe('failed');
    expect(run.body.error).toMatchObject({ code: 'MODEL_BAD_OUTPUT' });
    expect(run.body.error.message).toContain('did not fit its schema twice');
    const failed = (run.body.steps as Step[]).find((s) => s.status === 'failed');
    expect(failed?.name).toBe('suggest_ideas');
    // Both answers were paid for, though neither was usable.
    expect(failed?.usage).toEqual(sum(fake.usage.slice(before)));
    expect(fake.usage.length - before).toBe(2);
    expect(run.body.approvals).toEqual([]);
    const read = await api(svc.url, 'GET', `/v1/agent-runs/${run.body.id}`);
    expect(read.body).toMatchObject({ status: 'failed', error: { code: 'MODEL_BAD_OUTPUT' } });
  });
});

describe('configuration', () => {
  it('refuses SERVICE_MODEL=real without a base URL or a model name, naming the setting', () => {
    expect(() => loadConfig({ SERVICE_MODEL: 'real', SERVICE_MODEL_NAME: 'm' })).toThrow(ConfigError);
    expect(() => loadConfig({ SERVICE_MODEL: 'real', SERVICE_MODEL_NAME: 'm' })).toThrow(
      /SERVICE_MODEL_BASE_URL is required/,
    );
    expect(() =>
      loadConfig({ SERVICE_MODEL: 'real', SERVICE_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1' }),
    ).toThrow(/SERVICE_MODEL_NAME is required/);
    expect(
      loadConfig({
        SERVICE_MODEL: 'real',
        SERVICE_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1',
        SERVICE_MODEL_NAME: 'llama3.1',
      }).realModel,
    ).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', name: 'llama3.1' });
  });
});
