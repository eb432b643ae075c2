// One rule for the platform limits on every platform and every route that takes post text: over
// a limit is 422 TOO_LONG / TOO_MANY_PARTS naming the part, never a 400 from a request bound that
// happens to equal one platform's limit. Characters are counted as people count them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PARTS, PLATFORM_LIMITS, PLATFORMS } from '../../src/content/domain.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { count, makeBrand, makeDraft } from './helpers.js';

let svc: TestService;
let brand: { id: string; channels: Record<string, string> };
beforeAll(async () => {
  svc = await startTestService('content');
  brand = await makeBrand(svc, { channels: [...PLATFORMS] });
});
afterAll(() => svc.close());

const words = (n: number) => 'word '.repeat(Math.ceil(n / 5)).slice(0, n);
const drafts = () => count(svc, `/v1/drafts?brand_id=${brand.id}&limit=100`, 'drafts');

describe.each(PLATFORMS)('%s', (platform) => {
  const limit = PLATFORM_LIMITS[platform];
  const over = `${words(limit)}!`;

  it(`one character over ${limit} is 422 TOO_LONG on every route that takes text`, async () => {
    const before = await drafts();
    const draftId = await makeDraft(svc, brand.id, platform, 'A short draft that fits everywhere today.');
    const calls: [string, string, Record<string, unknown>][] = [
      ['POST', '/v1/drafts', { brand_id: brand.id, platform, text: over }],
      ['POST', '/v1/drafts', { brand_id: brand.id, platform, parts: [{ text: over }] }],
      ['PATCH', `/v1/drafts/${draftId}`, { text: over }],
      ['POST', '/v1/posts', { channel_id: brand.channels[platform], text: over }],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(svc.url, method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'TOO_LONG', param: 'parts.0.text' });
      expect(res.body.error.message).toBe(`Part 1 has ${limit + 1} characters; ${platform} allows ${limit}.`);
    }
    expect(await drafts()).toBe(before + 1);
    expect((await api(svc.url, 'GET', `/v1/drafts/${draftId}`)).body.version).toBe(1);
  });

  it(`exactly ${limit} characters fit, emoji counted as one`, async () => {
    const emoji = '🙂'.repeat(limit);
    const res = await api(svc.url, 'POST', '/v1/drafts', {
      body: { brand_id: brand.id, platform, text: emoji },
    });
    expect(res.status, JSON.stringify(res.body.error)).toBe(201);
    expect(res.body.parts[0].chars).toBe(limit);
    const more = await api(svc.url, 'POST', '/v1/drafts', {
      body: { brand_id: brand.id, platform, text: `${emoji}🙂` },
    });
    expect(more.status).toBe(422);
    expect(more.body.error.code).toBe('TOO_LONG');
  });

  it(`one part more than ${MAX_PARTS[platform]} is 422 TOO_MANY_PARTS`, async () => {
    const parts = Array.from({ length: MAX_PARTS[platform] + 1 }, (_, i) => ({ text: `Part ${i + 1}.` }));
    const res = await api(svc.url, 'POST', '/v1/drafts', { body: { brand_id: brand.id, platform, parts } });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'TOO_MANY_PARTS', param: 'parts' });
  });
});
