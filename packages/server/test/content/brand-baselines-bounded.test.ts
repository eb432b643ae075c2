import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import { VERDICT_THRESHOLD } from '../../src/content/domain.js';
import { recordSnapshots } from '../../src/content/services/baselines.js';
import { twoInstances } from '../helpers/race.js';
import { api, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';

const ctxOf = (svc: TestService) => (svc.handle as unknown as { ctx: ContentContext }).ctx;

/**
 * brand_baselines must not grow with the brand: a brand with many posts keeps a row of bounded
 * size (services/baselines.ts), and listing its posts still gives the verdict computed from every
 * snapshot, within the documented 0.4% on the baseline figure. The snapshots are written from
 * two instances at once, so a lost update shows as a missing count.
 */
describe('bounded brand baselines', () => {
  const POSTS = 600;
  let instances: Awaited<ReturnType<typeof twoInstances>>;
  let a: TestService;
  let b: TestService;
  let brandId: string;
  let ids: string[];

  beforeAll(async () => {
    instances = await twoInstances('content', { config: { seed: 'none' } });
    ({ a, b } = instances);
    const brand = await makeBrand(a, { channels: ['x'] });
    brandId = brand.id;
    const res = await api(a.url, 'POST', '/v1/posts', {
      body: { channel_id: brand.channels.x, text: 'The post every other one is a copy of.' },
    });
    expect(res.status).toBe(201);
    // Copies of the published post, written directly: publishing 600 posts through the API
    // would only add minutes. Each copy's slot is left empty (one post per channel per hour).
    const db = ctxOf(a).db;
    const row = await db.get<Record<string, unknown>>('SELECT * FROM posts WHERE id = ?', [res.body.id]);
    const cols = Object.keys(row ?? {});
    ids = Array.from({ length: POSTS }, (_, i) => `${res.body.id}c${i}`);
    for (const id of ids)
      await db.run(
        `INSERT INTO posts (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`,
        cols.map((c) => (c === 'id' ? id : c === 'slot_hour' ? null : (row?.[c] as string))) as never,
      );
  }, 120_000);
  afterAll(() => instances.close());

  it('keeps the row small, counts every snapshot from two instances, and lists the computed verdicts', async () => {
    // 600 engagement figures from 1,000 to 1,999 at 24 h (one doubling: at most 128 buckets),
    // half written by each instance at once.
    const write = (svc: TestService, part: string[], offset: number) =>
      (async () => {
        for (const [i, id] of part.entries()) {
          const likes = 1000 + (((2 * i + offset) * 7919) % 1000);
          await ctxOf(svc).transaction((tx) =>
            recordSnapshots(tx, { id, brand_id: brandId, platform: 'x' }, [
              {
                post_id: id,
                age_h: 24,
                taken_at: '2026-03-03T08:00:00.000Z',
                impressions: likes * 20,
                likes,
                comments: 0,
                shares: 0,
                clicks: 0,
              },
            ]),
          );
        }
      })();
    await Promise.all([
      write(
        a,
        ids.filter((_, i) => i % 2 === 0),
        0,
      ),
      write(
        b,
        ids.filter((_, i) => i % 2 === 1),
        1,
      ),
    ]);

    const row = await ctxOf(b).db.get<{ baselines: string; histogram: string }>(
      'SELECT baselines, histogram FROM brand_baselines WHERE brand_id = ?',
      [brandId],
    );
    const baselines = JSON.parse(row?.baselines ?? '{}');
    const histogram: Record<string, number> = JSON.parse(row?.histogram ?? '{}').x['24'];
    // Every snapshot counted, none lost between the two instances.
    expect(baselines.x.posts).toBe(POSTS);
    expect(baselines.x.curve['24'].n).toBe(POSTS);
    expect(Object.values(histogram).reduce((s, c) => s + c, 0)).toBe(POSTS);
    // Bounded: 128 buckets per doubling, a few values per age, whatever the number of posts.
    expect(Object.keys(histogram).length).toBeLessThanOrEqual(128);
    expect(row?.baselines.length).toBeLessThan(200);

    const outcomes = new Map<string, any>(
      (await api(a.url, 'POST', `/v1/brands/${brandId}/outcomes?limit=100`)).body.outcomes.map((o: any) => [
        o.post_id,
        o,
      ]),
    );
    const page = (await api(b.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=100`)).body.posts;
    expect(page.length).toBe(100);
    for (const p of page.slice(0, 25)) {
      const computed = outcomes.get(p.id);
      const one = (await api(b.url, 'GET', `/v1/posts/${p.id}`)).body.outcome;
      expect(one.verdict).toBe(p.verdict);
      expect(one.compared_with).toBe(computed.compared_with);
      expect(one.engagements).toBe(computed.engagements);
      // Within 0.4% of the median from every snapshot; the verdict agrees unless its ratio is
      // that close to a threshold.
      expect(Math.abs(one.baseline_engagements - computed.baseline_engagements)).toBeLessThanOrEqual(
        computed.baseline_engagements * 0.004 + 0.1,
      );
      const nearThreshold = [VERDICT_THRESHOLD.above, VERDICT_THRESHOLD.below].some(
        (t) => Math.abs(computed.ratio - t) <= t * 0.005,
      );
      if (!nearThreshold) expect(p.verdict).toBe(computed.verdict);
    }
  }, 180_000);
});
