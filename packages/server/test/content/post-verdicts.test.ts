import { describe, expect, it } from 'vitest';
import { contentPair } from '../helpers/content-pair.js';
import { api, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';

const REAL_VERDICTS = ['outperforming', 'on_par', 'underperforming'];

/**
 * Listing posts takes each verdict from the brand's baselines stored beside the snapshots
 * (services/baselines.ts), not from every snapshot of the brand. Two instances on one database:
 * a snapshot written by one must change what the other lists at once (no process cache), and the
 * listed verdict (and GET /v1/posts/{id}'s outcome) must be the one computed from all the
 * snapshots (POST /v1/brands/{id}/outcomes).
 */
describe('post verdicts from the stored baselines', () => {
  const pair = contentPair();
  const { publish } = pair;
  /** The brand's listed posts (one page of up to 100). */
  const listPage = async (svc: TestService, brandId: string) => {
    const res = await api(svc.url, 'GET', `/v1/posts?brand_id=${brandId}&limit=100`);
    expect(res.status).toBe(200);
    return res.body.posts as any[];
  };
  /** Each listed post's verdict, by id. */
  const listed = async (svc: TestService, brandId: string) =>
    new Map<string, string>((await listPage(svc, brandId)).map((p) => [p.id, p.verdict]));
  /** The listed posts' latest metrics, by id: the list reads them its own way (one row per post). */
  const listedMetrics = async (svc: TestService, brandId: string) =>
    new Map<string, unknown>((await listPage(svc, brandId)).map((p) => [p.id, p.metrics]));
  /** The verdict as POST /v1/brands/{id}/outcomes computes it, from every snapshot of the brand. */
  const computed = async (svc: TestService, brandId: string, id: string) => {
    const res = await api(svc.url, 'POST', `/v1/brands/${brandId}/outcomes`);
    expect(res.status).toBe(200);
    const outcome = res.body.outcomes.find((o: any) => o.post_id === id);
    // GET /v1/posts/{id} reads the stored baselines like the list; it must agree in full.
    const one = await api(svc.url, 'GET', `/v1/posts/${id}`);
    expect(one.body.outcome).toEqual(outcome);
    // And the list shows the post's latest snapshot, the last of the growth GET shows.
    expect((await listedMetrics(svc, brandId)).get(id)).toEqual(one.body.growth.at(-1) ?? null);
    return outcome.verdict as string;
  };

  it('a snapshot written on one instance changes the verdict the other lists at once', async () => {
    const { a, b } = pair;
    const brand = await makeBrand(a, { channels: ['x'] });
    await publish(brand.channels.x as string, 'First baseline: how we write weekly notes.');
    await publish(brand.channels.x as string, 'Second baseline: async standups, a month in.');
    const post = await publish(brand.channels.x as string, 'Which meeting would you drop first?');
    // 1 h snapshots of all three, then the post is frozen at its 1 h snapshot.
    expect((await api(b.url, 'POST', '/v1/sandbox/clock/advance', { body: { minutes: 90 } })).status).toBe(
      200,
    );
    expect((await api(b.url, 'POST', `/v1/posts/${post}/resolve`)).status).toBe(200);
    // Two other posts to compare with at 1 h: fewer than the three a verdict needs.
    expect((await listed(a, brand.id)).get(post)).toBe('not_enough_data');
    expect(await computed(a, brand.id, post)).toBe('not_enough_data');

    // A third post's 1 h snapshot, written by instance b's clock hop, is the third comparison.
    await publish(brand.channels.x as string, 'Third baseline: the decision log we keep.');
    const hop = await api(b.url, 'POST', '/v1/sandbox/clock/advance', { body: { minutes: 90 } });
    expect(hop.body.snapshots).toBeGreaterThan(0);
    const verdict = (await listed(a, brand.id)).get(post);
    expect(REAL_VERDICTS).toContain(verdict);
    expect(verdict).toBe(await computed(a, brand.id, post));
    expect((await listed(b, brand.id)).get(post)).toBe(verdict);
  });

  it('lists the verdict computed from every snapshot, for every post of a brand', async () => {
    const { a, b } = pair;
    const brand = await makeBrand(a, { channels: ['x', 'linkedin'] });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const channel = (i % 3 === 0 ? brand.channels.linkedin : brand.channels.x) as string;
      ids.push(
        await publish(
          channel,
          `Note ${i}: ${i % 2 ? 'What would you change?' : 'Here is our 3-step checklist.'}`,
        ),
      );
      // Posts of different ages, so their latest snapshots fall at different points of the curve.
      await api(i % 2 ? a.url : b.url, 'POST', '/v1/sandbox/clock/advance', {
        body: { hours: 1 + (i % 4) * 5 },
      });
    }
    await api(b.url, 'POST', `/v1/posts/${ids[11]}/resolve`);
    const verdicts = await listed(a, brand.id);
    expect(verdicts.size).toBe(ids.length);
    const real = [...verdicts.values()].filter((v) => REAL_VERDICTS.includes(v));
    expect(real.length).toBeGreaterThan(3);
    for (const id of ids) expect(verdicts.get(id), id).toBe(await computed(b, brand.id, id));
  });
});
