import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import { SNAPSHOT_AGES_H } from '../../src/content/domain.js';
import { HOUR } from '../../src/platform/clock.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

describe('demo workspace seed', () => {
  let svc: TestService;
  let brandId: string;
  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
    const brands = await api(svc.url, 'GET', '/v1/brands');
    brandId = brands.body.brands[0].id;
  });
  afterAll(() => svc.close());

  it('seeds one brand with memory and two connected sandbox channels', async () => {
    const brands = await api(svc.url, 'GET', '/v1/brands');
    expect(brands.body.brands).toHaveLength(1);
    const brand = await api(svc.url, 'GET', `/v1/brands/${brandId}`);
    expect(brand.status).toBe(200);
    expect(brand.body.channels.map((c: any) => c.platform).sort()).toEqual(['linkedin', 'x']);
    expect(brand.body.memory.voice.banned_words.length).toBeGreaterThan(0);
    expect(brand.body.memory.knowledge.length).toBeGreaterThan(0);
  });

  it('has about 60 published posts over 8 weeks, with metrics and verdicts', async () => {
    const all: any[] = [];
    let after: string | null = null;
    do {
      const page: any = await api(
        svc.url,
        'GET',
        `/v1/posts?brand_id=${brandId}&status=published&limit=100${after ? `&after=${after}` : ''}`,
      );
      all.push(...page.body.posts);
      after = page.body.next_after;
    } while (after);
    expect(all.length).toBe(60);
    expect(all.every((p) => p.metrics && p.metrics.impressions > 0)).toBe(true);
    const verdicts = new Set(all.map((p) => p.verdict));
    expect(verdicts.has('outperforming')).toBe(true);
    expect(verdicts.has('underperforming')).toBe(true);
  });

  it('has every snapshot its posts are old enough for, and replies on the 24-hour ones', async () => {
    // The seed writes these in multi-row statements of up to 100 rows: all of them must land.
    const db = (svc.handle as ContentHandle).ctx.db;
    const posts = await db.all<{ id: string; published_at: string }>(
      "SELECT id, published_at FROM posts WHERE brand_id = ? AND status = 'published'",
      [brandId],
    );
    const now = svc.clock.now().getTime();
    const expected = posts.reduce(
      (n, p) => n + SNAPSHOT_AGES_H.filter((a) => a <= (now - Date.parse(p.published_at)) / HOUR).length,
      0,
    );
    expect(expected).toBeGreaterThan(100);
    expect(await db.get('SELECT COUNT(*) AS n FROM post_metrics')).toEqual({ n: expected });
    const replied = await db.get<{ n: number }>('SELECT COUNT(DISTINCT post_id) AS n FROM replies');
    expect(replied?.n).toBeGreaterThan(30);
  });

  it('shows real figures in overview, best times, digest and themes', async () => {
    const overview = await api(svc.url, 'GET', `/v1/insights/overview?brand_id=${brandId}`);
    expect(overview.status).toBe(200);
    expect(overview.body.posts_published).toBeGreaterThan(20);
    expect(overview.body.engagements).toBeGreaterThan(0);

    const times = await api(svc.url, 'GET', `/v1/brands/${brandId}/best-times`);
    expect(times.status).toBe(200);
    for (const p of times.body.platforms) {
      expect(p.source).toBe('history');
      expect(p.next_free).not.toBeNull();
      for (const s of p.slots) {
        expect(s.weekday).toBeGreaterThanOrEqual(0);
        expect(s.weekday).toBeLessThanOrEqual(6);
        expect(s.hour).toBeGreaterThanOrEqual(0);
        expect(s.hour).toBeLessThanOrEqual(23);
        expect(s.score).toBeGreaterThanOrEqual(0);
        expect(s.score).toBeLessThanOrEqual(1);
      }
    }

    const digest = await api(svc.url, 'GET', `/v1/brands/${brandId}/digest`);
    expect(digest.status).toBe(200);
    expect(digest.body.headline).toMatch(/posts/);
    expect(digest.body.wins.length + digest.body.misses.length).toBeGreaterThan(0);
    expect(digest.body.recommendations.some((r: any) => r.signal_ids.length > 0)).toBe(true);
    expect(digest.body.wins.every((w: any) => w.post_ids.length > 0)).toBe(true);

    const conv = await api(svc.url, 'GET', `/v1/brands/${brandId}/conversation`);
    expect(conv.status).toBe(200);
    expect(conv.body.total_replies).toBeGreaterThan(0);
    const counts = conv.body.themes.map((t: any) => t.count);
    expect(counts).toEqual([...counts].sort((a: number, b: number) => b - a));
  });

  it('writes the digest in words: platforms by their names, patterns that read as English', async () => {
    const digest = (await api(svc.url, 'GET', `/v1/brands/${brandId}/digest`)).body;
    const texts: string[] = ['wins', 'misses', 'patterns', 'recommendations'].flatMap((k) =>
      digest[k].map((e: { text: string }) => e.text),
    );
    // The demo's history is long enough for best times of its own, so it recommends a slot.
    const schedule = texts.filter((t) => t.startsWith('Schedule '));
    expect(schedule.length).toBeGreaterThan(0);
    for (const t of schedule) expect(t).toMatch(/^Schedule (X|LinkedIn|Instagram|Threads) posts for /);
    for (const t of texts) {
      expect(t).not.toMatch(/\bon (x|linkedin|instagram|threads)\b/);
      expect(t).not.toMatch(/with opening with/);
    }
  });

  it('has signals, ideas citing them, a pending approval and a campaign canvas', async () => {
    const signals = await api(svc.url, 'GET', `/v1/brands/${brandId}/signals`);
    expect(signals.body.signals.length).toBeGreaterThan(0);
    const ideas = await api(svc.url, 'GET', `/v1/ideas?brand_id=${brandId}`);
    expect(ideas.body.ideas.some((i: any) => i.signal !== null)).toBe(true);
    const approvals = await api(svc.url, 'GET', '/v1/approvals');
    expect(approvals.body.counts.pending).toBe(1);
    const campaigns = await api(svc.url, 'GET', '/v1/campaigns');
    const canvas = await api(svc.url, 'GET', `/v1/campaigns/${campaigns.body.campaigns[0].id}/canvas`);
    expect(canvas.body.items).toHaveLength(2);
  });

  it('does not seed again on restart', async () => {
    svc = await svc.restart();
    const brands = await api(svc.url, 'GET', '/v1/brands');
    expect(brands.body.brands).toHaveLength(1);
  });
});
