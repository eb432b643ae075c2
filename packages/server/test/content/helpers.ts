import { afterAll, beforeAll } from 'vitest';
import { twoInstancesForFile } from '../helpers/race.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** A brand with banned words, a product, and (by default) connected X and LinkedIn sandbox channels. */
export async function makeBrand(
  svc: TestService,
  opts: { channels?: ('x' | 'linkedin' | 'instagram' | 'threads')[] } = {},
) {
  const res = await api(svc.url, 'POST', '/v1/brands', {
    body: {
      name: `Brand ${Math.random().toString(36).slice(2, 7)}`,
      memory: {
        voice: {
          summary: 'Plain and practical.',
          do: ['Lead with an example'],
          avoid: ['Hype'],
          banned_words: ['synergy'],
        },
        products: [{ name: 'Fieldnote', description: 'Team notes' }],
        audiences: [{ name: 'Team leads' }],
      },
    },
  });
  if (res.status !== 201) throw new Error(`brand: ${JSON.stringify(res.body)}`);
  const channels: Record<string, string> = {};
  for (const platform of opts.channels ?? ['x', 'linkedin']) {
    const c = await api(svc.url, 'POST', `/v1/brands/${res.body.id}/channels/connect`, {
      body: { platform },
    });
    channels[platform] = c.body.channel.id;
  }
  return { id: res.body.id as string, channels };
}

/** The body of an automation running the digest agent, at most twice a day (the cap tests count to it). */
export const digestCappedAtTwo = (brandId: string) => ({
  brand_id: brandId,
  name: 'Digest',
  agent_id: 'digest',
  daily_cap: 2,
  trigger: { type: 'schedule', every: 'week', weekday: 1, hour: 3 },
});

export async function makeSignal(svc: TestService, brandId: string, title = 'Async standups are trending') {
  const res = await api(svc.url, 'POST', `/v1/brands/${brandId}/signals`, {
    body: { kind: 'trend', title, summary: 'Team leads talk about it.', strength: 0.8 },
  });
  return res.body.id as string;
}

export async function makeIdea(svc: TestService, brandId: string, title = 'Async standups in practice') {
  const res = await api(svc.url, 'POST', '/v1/ideas', {
    body: { brand_id: brandId, title, angle: 'A how-to' },
  });
  return res.body.id as string;
}

export async function makeDraft(
  svc: TestService,
  brandId: string,
  platform = 'x',
  text = 'How do you run standups without a meeting? Here is what worked for us.',
) {
  const res = await api(svc.url, 'POST', '/v1/drafts', { body: { brand_id: brandId, platform, text } });
  if (res.status !== 201) throw new Error(`draft: ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

export async function count(svc: TestService, path: string, key: string) {
  const res = await api(svc.url, 'GET', path);
  return (res.body[key] as unknown[]).length;
}

/**
 * Two content instances on one database (`twoInstancesForFile`) and a brand made on the first,
 * for the calling file's race tests. Read `a`, `b` and `brand` inside a test.
 */
export function twoInstancesWithBrand() {
  const two = twoInstancesForFile('content');
  let brand: Awaited<ReturnType<typeof makeBrand>> | undefined;
  beforeAll(async () => {
    brand = await makeBrand(two.a);
  });
  return {
    get a() {
      return two.a;
    },
    get b() {
      return two.b;
    },
    get brand() {
      if (!brand) throw new Error('twoInstancesWithBrand: the brand is made in beforeAll; use it in a test.');
      return brand;
    },
  };
}

/**
 * A content service and a brand made on it, for the calling `describe`'s tests: started before
 * the first, closed after the last. Read `svc` and `brand` inside a test.
 */
export function serviceWithBrand() {
  let svc: TestService | undefined;
  let brand: Awaited<ReturnType<typeof makeBrand>> | undefined;
  beforeAll(async () => {
    svc = await startTestService('content');
    brand = await makeBrand(svc);
  });
  afterAll(() => svc?.close());
  const made = () => {
    if (!svc || !brand) throw new Error('serviceWithBrand: made in beforeAll; use it inside a test.');
    return { svc, brand };
  };
  return {
    get svc() {
      return made().svc;
    },
    get brand() {
      return made().brand;
    },
  };
}
