// Token usage is counted per agent run step by a meter handed to the model calls (the context a
// step gets), not by an AsyncLocalStorage: on Node 20 the first run() of one turns on async hooks
// for every promise in the process for good, which every later request would pay for.
import { AsyncLocalStorage, executionAsyncId } from 'node:async_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChatRequest, type OpenAiFake, startOpenAiFake } from '../fakes/openai-fake.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeSignal } from './helpers.js';

/**
 * Are async hooks on for promises? With none enabled Node gives a promise's reaction no async id
 * of its own (it runs under the id of the code around it); once any hook is on, as an
 * AsyncLocalStorage's first run() does on Node 20, every promise gets one.
 */
async function promiseHooksOn(): Promise<boolean> {
  const outer = executionAsyncId();
  const inner = await Promise.resolve().then(() => executionAsyncId());
  return inner !== outer;
}

/**
 * Counts what enters an AsyncLocalStorage while `fn` runs (`run` and `enterWith`, the two calls
 * that turn the hooks on). The server's test files share worker processes (`isolate: false`), so
 * another file (a browser test's library, say) may already have turned the hooks on for this
 * process; this count does not depend on that.
 */
async function storageEntries(fn: () => Promise<void>): Promise<number> {
  const proto = AsyncLocalStorage.prototype as unknown as Record<
    'run' | 'enterWith',
    (...args: unknown[]) => unknown
  >;
  const { run, enterWith } = proto;
  let entries = 0;
  proto.run = function (this: unknown, ...args: unknown[]) {
    entries++;
    return run.apply(this, args);
  };
  proto.enterWith = function (this: unknown, ...args: unknown[]) {
    entries++;
    return enterWith.apply(this, args);
  };
  try {
    await fn();
  } finally {
    proto.run = run;
    proto.enterWith = enterWith;
  }
  return entries;
}

const prompt = (req: ChatRequest) => req.messages.map((m) => m.content).join('\n');

function respond(req: ChatRequest): string {
  const text = prompt(req);
  if (/Suggest \d+ post ideas/.test(text)) {
    const ids = [...text.matchAll(/- id (\S+) \(/g)].map((m) => m[1]);
    return JSON.stringify({
      ideas: ids.map((id, i) => ({
        title: `Idea ${i + 1} from ${id}`,
        angle: 'A how-to',
        notes: '',
        signal_id: id,
      })),
    });
  }
  return JSON.stringify({ parts: ['Async standups saved our team 40 minutes a day.'] });
}

type Usage = { prompt_tokens: number; completion_tokens: number; total_tokens: number };
type Step = { name: string; usage: Usage | null };

describe('agent run usage without async hooks', () => {
  let fake: OpenAiFake;
  let svc: TestService;
  // The first two idea requests are held until both have arrived: both runs are then inside
  // their suggest_ideas step, each with a model call in flight, at the same time.
  let ideasIn = 0;
  let bothIn: () => void = () => undefined;
  const both = new Promise<void>((resolve) => {
    bothIn = resolve;
  });
  beforeAll(async () => {
    fake = await startOpenAiFake({
      respond,
      hold: async (req) => {
        if (!/Suggest \d+ post ideas/.test(prompt(req)) || ideasIn >= 2) return;
        if (++ideasIn === 2) bothIn();
        await both;
      },
    });
    svc = await startTestService('content', {
      config: { model: 'real', realModel: { baseUrl: fake.baseUrl, name: 'test-model' } },
    });
  });
  afterAll(async () => {
    await svc?.close();
    await fake?.close();
  });

  it('attributes each model call to its own run when two runs overlap, and enters no AsyncLocalStorage', async () => {
    // Off here unless another test file in this worker turned them on; then only the count below
    // can tell (it is asserted either way).
    const hooksWereOff = !(await promiseHooksOn());
    const a = await makeBrand(svc, { channels: ['x'] });
    const b = await makeBrand(svc, { channels: ['x'] });
    await makeSignal(svc, a.id, 'Async standups');
    // A longer signal, so brand B's prompts (and their token counts) differ from brand A's.
    await makeSignal(
      svc,
      b.id,
      'Async standups are trending among remote team leads everywhere this quarter',
    );
    const run = (brandId: string) =>
      api(svc.url, 'POST', '/v1/agents/weekly_plan/runs', {
        body: { inputs: { brandId, platforms: ['x'], count: 1 } },
      });
    let ra: Awaited<ReturnType<typeof run>> | undefined;
    let rb: Awaited<ReturnType<typeof run>> | undefined;
    const entered = await storageEntries(async () => {
      [ra, rb] = await Promise.all([run(a.id), run(b.id)]);
    });
    // Nothing the runs did entered an AsyncLocalStorage (the old meter entered one per step).
    expect(entered).toBe(0);
    if (!ra || !rb) throw new Error('the runs did not answer');
    expect([ra.body.status, rb.body.status]).toEqual(['succeeded', 'succeeded']);
    expect(ideasIn).toBe(2);

    // What the fake answered for each brand, told apart by the brand's name in the prompt.
    const names = new Map<string, string>();
    for (const brand of [a, b]) {
      const got = await api(svc.url, 'GET', `/v1/brands/${brand.id}`);
      names.set(brand.id, got.body.name);
    }
    const spent = (brandId: string, kind: RegExp) =>
      fake.requests
        .map((req, i) => ({ req, usage: fake.usage[i] as Usage }))
        .filter(({ req }) => prompt(req).includes(names.get(brandId) as string) && kind.test(prompt(req)))
        .map(({ usage }) => usage);
    for (const [brandId, res] of [
      [a.id, ra],
      [b.id, rb],
    ] as const) {
      const steps = Object.fromEntries((res.body.steps as Step[]).map((s) => [s.name, s]));
      const ideas = spent(brandId, /Suggest \d+ post ideas/);
      const drafts = spent(brandId, /^(?![\s\S]*Suggest \d+ post ideas)/);
      expect(ideas).toHaveLength(1);
      expect(drafts).toHaveLength(1);
      expect(steps.suggest_ideas?.usage).toEqual(ideas[0]);
      expect(steps.draft?.usage).toEqual(drafts[0]);
      expect(steps.read_last_week?.usage).toBeNull();
    }
    expect(ra.body.steps.find((s: Step) => s.name === 'suggest_ideas').usage).not.toEqual(
      rb.body.steps.find((s: Step) => s.name === 'suggest_ideas').usage,
    );
    expect(fake.violations).toEqual([]);
    // Nothing the runs did turned on async hooks for the rest of the process.
    if (hooksWereOff) expect(await promiseHooksOn()).toBe(false);
  });
});
