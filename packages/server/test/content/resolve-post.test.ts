import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';

const HOUR = 3_600_000;
const REAL_VERDICTS = ['outperforming', 'on_par', 'underperforming'];

/** What POST /v1/posts/:id/resolve means: a final snapshot now, then frozen; never an empty outcome. */
describe('resolving a post', () => {
  let svc: TestService;
  let brand: { id: string; channels: Record<string, string> };
  beforeAll(async () => {
    svc = await startTestService('content');
    brand = await makeBrand(svc, { channels: ['x'] });
    // A baseline: four settled X posts.
    for (let i = 0; i < 4; i++)
      await api(svc.url, 'POST', '/v1/posts', {
        body: { channel_id: brand.channels.x, text: `Baseline post ${i} about async notes.` },
      });
    await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { days: 4 } });
  });
  afterAll(() => svc.close());

  const publish = async (text: string) =>
    (await api(svc.url, 'POST', '/v1/posts', { body: { channel_id: brand.channels.x, text } })).body;

  it('refuses with 409 NOTHING_TO_SETTLE before the first snapshot, and leaves the post growing', async () => {
    const post = await publish('Too fresh to judge: how do you run async standups?');
    svc.clock.advance(20 * 60_000);
    const res = await api(svc.url, 'POST', `/v1/posts/${post.id}/resolve`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('NOTHING_TO_SETTLE');
    expect(res.body.error.message).toMatch(/first snapshot is taken 1 h after publishing/);
    const after = await api(svc.url, 'GET', `/v1/posts/${post.id}`);
    expect(after.body).toMatchObject({ settled_at: null, metrics: null });

    await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 4 } });
    const grown = await api(svc.url, 'GET', `/v1/posts/${post.id}`);
    expect(grown.body.growth.map((g: any) => g.age_h)).toEqual([1, 3]);
  });

  it('takes a final snapshot at the hour reached, judges it, and then the post grows no more', async () => {
    const post = await publish('What is the one meeting you would drop? Ours was the Monday sync.');
    // 2.5 h later, without the background tick: only the 1 h snapshot is due.
    svc.clock.advance(2.5 * HOUR);
    const res = await api(svc.url, 'POST', `/v1/posts/${post.id}/resolve`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ post_id: post.id, settled: true, age_h: 2 });
    expect(res.body.engagements).toBeGreaterThan(0);
    expect(res.body.compared_with).toBeGreaterThanOrEqual(3);
    expect(REAL_VERDICTS).toContain(res.body.verdict);
    expect(res.body.baseline_engagements).toBeGreaterThan(0);

    const got = await api(svc.url, 'GET', `/v1/posts/${post.id}`);
    expect(got.body.growth.map((g: any) => g.age_h)).toEqual([1, 2]);
    expect(got.body.metrics.age_h).toBe(2);
    expect(got.body.verdict).toBe(res.body.verdict);
    expect(got.body.outcome).toEqual(res.body);
    expect(got.body.settled_at).not.toBeNull();

    // Frozen: later ticks neither grow nor settle it again; resolving again returns the same outcome.
    const later = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { days: 4 } });
    expect(later.body.settled).not.toContain(post.id);
    const frozen = await api(svc.url, 'GET', `/v1/posts/${post.id}`);
    expect(frozen.body.growth.map((g: any) => g.age_h)).toEqual([1, 2]);
    expect(frozen.body.settled_at).toBe(got.body.settled_at);
    const again = await api(svc.url, 'POST', `/v1/posts/${post.id}/resolve`);
    expect(again.status).toBe(200);
    expect(again.body.age_h).toBe(2);
    expect(again.body.engagements).toBe(res.body.engagements);
  });

  it('keeps resolved posts in the overview: every published post counts once in verdicts', async () => {
    const post = await publish('Which status report would you never miss?');
    svc.clock.advance(1.5 * HOUR);
    expect((await api(svc.url, 'POST', `/v1/posts/${post.id}/resolve`)).status).toBe(200);
    const overview = await api(svc.url, 'GET', `/v1/insights/overview?brand_id=${brand.id}&days=30`);
    expect(overview.status).toBe(200);
    const v = overview.body.verdicts;
    const sum = v.outperforming + v.on_par + v.underperforming + v.not_enough_data + v.too_early;
    expect(sum).toBe(overview.body.posts_published);
    const posts = await api(svc.url, 'GET', `/v1/posts?brand_id=${brand.id}&status=published&limit=100`);
    expect(overview.body.posts_published).toBe(posts.body.posts.length);
    const resolved = posts.body.posts.find((p: any) => p.id === post.id);
    expect(resolved.metrics).not.toBeNull();
    const byVerdict = posts.body.posts.filter((p: any) => p.verdict === resolved.verdict).length;
    expect(v[resolved.verdict]).toBe(byVerdict);
  });
});
