import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contentStores } from '../../src/content/db/stores/index.js';
import { PLATFORMS, type Platform, SNAPSHOT_AGES_H } from '../../src/content/domain.js';
import { rebuildBaselines } from '../../src/content/services/baselines.js';
import { MIN_HISTORY, rankSlots } from '../../src/content/services/best-times.js';
import { engagementsOf, outcomeOf, type SnapshotWithPlatform } from '../../src/content/services/metrics.js';
import { PLATFORM_NAMES } from '../../src/content/text.js';
import { ManualClock } from '../../src/platform/clock.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { countReads } from '../helpers/count-reads.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand } from './helpers.js';
import { connect, makeKey, ok } from './mcp-helpers.js';

/*
 * The outcomes endpoint, the overview's verdicts, digests and best times used to read every
 * snapshot of a brand on each request. They now read the posts they report on and the brand's
 * stored baselines. These tests hold them to the figures computed the old way, from every
 * snapshot (the oracle below, over rows read straight from the database), and count the rows a
 * request reads for a brand with 20,000 snapshots.
 */

type Snap = SnapshotWithPlatform & { published_at: string };

/** Every snapshot of the brand's published posts, as services once read them. */
async function allSnapshots(db: SqlDatabase, brandId: string): Promise<Snap[]> {
  const rows = await db.all<Record<string, unknown>>(
    `SELECT m.*, p.platform, p.published_at FROM post_metrics m JOIN posts p ON p.id = m.post_id
      WHERE p.brand_id = ? AND p.status = 'published' ORDER BY m.post_id, m.age_h`,
    [brandId],
  );
  return rows.map((r) => ({
    post_id: String(r.post_id),
    age_h: Number(r.age_h),
    taken_at: String(r.taken_at),
    impressions: Number(r.impressions),
    likes: Number(r.likes),
    comments: Number(r.comments),
    shares: Number(r.shares),
    clicks: Number(r.clicks),
    platform: String(r.platform),
    published_at: String(r.published_at),
  }));
}

/** A post's outcome from every snapshot of the brand (metrics.ts's outcomeOf, as before). */
function oracleOutcome(all: Snap[], postId: string, platform: string) {
  const own = all.filter((s) => s.post_id === postId);
  const { verdict, ratio, age_h, engagements, baseline_engagements, compared_with } = outcomeOf(
    own,
    all,
    platform,
    postId,
  );
  return { verdict, ratio, age_h, engagements, baseline_engagements, compared_with };
}

/** Best slots per platform from every snapshot: each post scored as best-times.ts did before. */
function oracleSlots(all: Snap[]) {
  const posts = new Map<string, { platform: string; published_at: string; byAge: Map<number, number> }>();
  for (const s of all) {
    const p = posts.get(s.post_id) ?? {
      platform: s.platform,
      published_at: s.published_at,
      byAge: new Map(),
    };
    p.byAge.set(s.age_h, engagementsOf(s));
    posts.set(s.post_id, p);
  }
  const out: Record<string, { sample: number; slots: { weekday: number; hour: number; score: number }[] }> =
    {};
  for (const platform of PLATFORMS) {
    const mine = [...posts.values()].filter((p) => p.platform === platform);
    if (mine.length < MIN_HISTORY) continue;
    const ages = mine.map((p) => Math.max(...p.byAge.keys())).sort((a, b) => a - b);
    const common = ages[Math.floor(ages.length / 4)] ?? 24;
    // Which value each post is scored at is what the service now reads differently; the
    // bucketing and ranking of those values is best-times.ts's own rankSlots.
    const scored = mine.map((p) => ({
      published_at: p.published_at,
      value: p.byAge.get(common) ?? p.byAge.get(Math.max(...p.byAge.keys())) ?? 0,
    }));
    out[platform] = { sample: mine.length, slots: rankSlots(scored) };
  }
  return out;
}

async function expectBestTimesAsOracle(svc: TestService, brandId: string, all: Snap[]) {
  const expected = oracleSlots(all);
  const res = await api(svc.url, 'GET', `/v1/brands/${brandId}/best-times`);
  expect(res.status).toBe(200);
  for (const p of res.body.platforms) {
    if (p.source === 'default') {
      expect(expected[p.platform]).toBeUndefined();
      continue;
    }
    expect({ sample: p.sample_size, slots: p.slots }, p.platform).toEqual(expected[p.platform]);
  }
  return res.body;
}

describe('readers of a brand’s snapshots, on the demo brand', () => {
  let svc: TestService;
  let brandId: string;
  // Read again in each test: resolving a growing post takes its last snapshots.
  let all: Snap[];
  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
    brandId = (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id;
  });
  beforeEach(async () => {
    all = await allSnapshots(svc.handle.db, brandId);
  });
  afterAll(() => svc.close());

  it('returns the outcomes computed from every snapshot, and each resolved post its own', async () => {
    // The demo brand's 60 published posts fit on one page of 100.
    const res = await api(svc.url, 'POST', `/v1/brands/${brandId}/outcomes?limit=100`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ has_more: false, next_after: null });
    // Bad paging gets the documented error shape, as on every list.
    const tooMany = await api(svc.url, 'POST', `/v1/brands/${brandId}/outcomes?limit=101`);
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('INVALID_REQUEST');
    const badCursor = await api(svc.url, 'POST', `/v1/brands/${brandId}/outcomes?after=zz`);
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.error.code).toBe('INVALID_CURSOR');
    expect((await api(svc.url, 'POST', '/v1/brands/brd_none/outcomes')).status).toBe(404);
    // Settling takes no snapshots of the seeded posts (they have their full curves already).
    expect(await allSnapshots(svc.handle.db, brandId)).toEqual(all);
    const posts = await svc.handle.db.all<{ id: string; platform: string; settled_at: string | null }>(
      "SELECT id, platform, settled_at FROM posts WHERE brand_id = ? AND status = 'published' ORDER BY published_at DESC, id DESC",
      [brandId],
    );
    expect(res.body.outcomes.map((o: any) => o.post_id)).toEqual(posts.map((p) => p.id));
    const verdicts = new Set<string>();
    for (const [i, p] of posts.entries()) {
      const expected = {
        post_id: p.id,
        ...oracleOutcome(all, p.id, p.platform),
        settled: p.settled_at !== null,
      };
      expect(res.body.outcomes[i], p.id).toEqual(expected);
      verdicts.add(expected.verdict);
    }
    // The fixture exercises more than one branch of the verdict.
    expect(verdicts.size).toBeGreaterThan(2);
    // The newest posts are still growing: resolving one takes its last snapshot, then settles it.
    for (const p of [...posts.slice(0, 3), ...posts.slice(-2)]) {
      const one = await api(svc.url, 'POST', `/v1/posts/${p.id}/resolve`);
      expect(one.status).toBe(200);
      const now = await allSnapshots(svc.handle.db, brandId);
      expect(one.body).toEqual({ post_id: p.id, ...oracleOutcome(now, p.id, p.platform), settled: true });
    }
  });

  it('counts the overview verdicts computed from every snapshot', async () => {
    for (const days of [7, 28, 365]) {
      const res = await api(svc.url, 'GET', `/v1/insights/overview?brand_id=${brandId}&days=${days}`);
      expect(res.status).toBe(200);
      const from = res.body.period_start;
      const posts = await svc.handle.db.all<{ id: string; platform: string }>(
        "SELECT id, platform FROM posts WHERE brand_id = ? AND status = 'published' AND published_at >= ? AND published_at < ?",
        [brandId, from, res.body.period_end],
      );
      const expected = { outperforming: 0, on_par: 0, underperforming: 0, not_enough_data: 0, too_early: 0 };
      for (const p of posts) expected[oracleOutcome(all, p.id, p.platform).verdict]++;
      expect(res.body.verdicts, `${days} days`).toEqual(expected);
      expect(res.body.posts_published).toBe(posts.length);
    }
  });

  it('finds the best times computed from every snapshot, over REST and MCP', async () => {
    const rest = await expectBestTimesAsOracle(svc, brandId, all);
    expect(rest.platforms.some((p: any) => p.source === 'history')).toBe(true);
    const client = await connect(svc, (await makeKey(svc, ['read'])).key);
    try {
      const { data } = await ok(client, 'best_times', { brandId });
      expect(data.platforms.map((p: any) => ({ platform: p.platform, slots: p.slots }))).toEqual(
        rest.platforms.map((p: any) => ({ platform: p.platform, slots: p.slots })),
      );
    } finally {
      await client.close();
    }
  });

  it('cites, for a best slot, the first posts published in it', async () => {
    const res = await api(svc.url, 'POST', `/v1/brands/${brandId}/digest`, { body: { days: 7 } });
    expect(res.status).toBe(201);
    const times = (await api(svc.url, 'GET', `/v1/brands/${brandId}/best-times`)).body;
    const recs = res.body.recommendations.filter((r: any) => r.text.startsWith('Schedule '));
    expect(recs.length).toBeGreaterThan(0);
    for (const p of times.platforms.filter((x: any) => x.source === 'history').slice(0, 2)) {
      const best = p.slots[0];
      // Every published post counts, with snapshots or not yet, oldest first.
      const published = await svc.handle.db.all<{ id: string; published_at: string }>(
        "SELECT id, published_at FROM posts WHERE brand_id = ? AND status = 'published' AND platform = ? ORDER BY published_at, id",
        [brandId, p.platform],
      );
      const inSlot = published
        .filter((s) => {
          const d = new Date(s.published_at);
          return d.getDay() === best.weekday && d.getHours() === best.hour;
        })
        .slice(0, 3)
        .map((s) => s.id);
      const rec = recs.find((r: any) =>
        r.text.startsWith(`Schedule ${PLATFORM_NAMES[p.platform as Platform]} posts`),
      );
      expect(rec?.post_ids, p.platform).toEqual(inSlot);
    }
  });
});

/** 3,200 posts over two years, 20,480 snapshots: a brand with years of history. */
const POSTS = 3200;
const HOUR_MS = 3_600_000;
const START = Date.parse('2024-01-01T00:00:00.000Z');

async function largeBrand(svc: TestService) {
  const brand = await makeBrand(svc, { channels: ['x', 'linkedin'] });
  const db = svc.handle.db;
  let snapshots = 0;
  const posts: unknown[][] = [];
  const metrics: unknown[][] = [];
  for (let i = 0; i < POSTS; i++) {
    const platform = i % 3 === 0 ? 'linkedin' : 'x';
    // Every 5.5 hours, so posts land on every hour of every weekday.
    const published = new Date(START + i * 5.5 * HOUR_MS).toISOString();
    const id = `post_large_${String(i).padStart(5, '0')}`;
    posts.push([
      id,
      brand.id,
      brand.channels[platform],
      platform,
      'published',
      JSON.stringify([{ text: `Post ${i}`, media: [] }]),
      published,
      published,
      published,
      published,
      published,
    ]);
    // Every fifth post stopped being tracked early, so the posts' latest ages differ.
    const ages = i % 5 === 0 ? SNAPSHOT_AGES_H.slice(0, 4) : SNAPSHOT_AGES_H;
    const quality = 1 + ((i * 7919) % 97) / 50 + (new Date(published).getHours() % 6) / 3;
    for (const age of ages) {
      const e = Math.round(quality * 10 * (1 - Math.exp(-age / 14)));
      metrics.push([
        id,
        age,
        new Date(Date.parse(published) + age * HOUR_MS).toISOString(),
        e * 20,
        e,
        1,
        0,
        2,
      ]);
      snapshots++;
    }
  }
  const insert = async (table: string, cols: string, rows: unknown[][]) => {
    for (let i = 0; i < rows.length; i += 400) {
      const batch = rows.slice(i, i + 400);
      const one = `(${cols
        .split(',')
        .map(() => '?')
        .join(', ')})`;
      await db.run(
        `INSERT INTO ${table} (${cols}) VALUES ${batch.map(() => one).join(', ')}`,
        batch.flat() as never,
      );
    }
  };
  await insert(
    'posts',
    'id,brand_id,channel_id,platform,status,parts,published_at,sort_at,settled_at,created_at,updated_at',
    posts,
  );
  await insert('post_metrics', 'post_id,age_h,taken_at,impressions,likes,comments,shares,clicks', metrics);
  await db.transaction((tx) => rebuildBaselines(contentStores(tx), brand.id));
  return { id: brand.id, snapshots };
}

describe('readers of a brand’s snapshots, on a brand with 20,000 snapshots', () => {
  let svc: TestService;
  let brand: { id: string; snapshots: number };
  let reads: ReturnType<typeof countReads>;
  beforeAll(async () => {
    const clock = new ManualClock(new Date(START + POSTS * 5.5 * HOUR_MS + 30 * 24 * HOUR_MS));
    svc = await startTestService('content', { clock, config: { seed: 'none' } });
    brand = await largeBrand(svc);
    reads = countReads(svc.handle.db);
  }, 120_000);
  afterAll(() => svc.close());

  it('best times read one row a post, not every snapshot, and match them', async () => {
    expect(brand.snapshots).toBeGreaterThanOrEqual(20_000);
    let body: any;
    const read = await reads.during(async () => {
      body = (await api(svc.url, 'GET', `/v1/brands/${brand.id}/best-times`)).body;
    });
    expect(body.platforms.every((p: any) => p.source === 'history')).toBe(true);
    // The latest snapshot of each post, then each platform's posts at the common age.
    expect(read.rows).toBeLessThan(2 * POSTS + 50);
    expect(read.statements).toBeLessThan(15);
    await expectBestTimesAsOracle(svc, brand.id, await allSnapshots(svc.handle.db, brand.id));
  });

  it('the overview and a digest read the period’s posts, not every snapshot', async () => {
    const overview = await reads.during(() =>
      api(svc.url, 'GET', `/v1/insights/overview?brand_id=${brand.id}&days=28`),
    );
    // About 120 posts a period: their snapshots twice (totals, verdicts) and the previous period's.
    expect(overview.rows).toBeLessThan(3000);
    const digest = await reads.during(async () => {
      const res = await api(svc.url, 'POST', `/v1/brands/${brand.id}/digest`, { body: { days: 7 } });
      expect(res.status).toBe(201);
    });
    expect(digest.rows).toBeLessThan(brand.snapshots);
  });

  it('resolving one post reads its own snapshots and the baselines, and agrees with the oracle', async () => {
    const all = await allSnapshots(svc.handle.db, brand.id);
    for (const i of [0, 1, 2, 1601, POSTS - 1]) {
      const id = `post_large_${String(i).padStart(5, '0')}`;
      let body: any;
      const read = await reads.during(async () => {
        body = (await api(svc.url, 'POST', `/v1/posts/${id}/resolve`)).body;
      });
      expect(read.rows).toBeLessThan(40);
      const platform = i % 3 === 0 ? 'linkedin' : 'x';
      expect(body).toEqual({ post_id: id, ...oracleOutcome(all, id, platform), settled: true });
    }
    // Paged: one call reads one page of posts and their snapshots, not the brand's 3,200 posts
    // (unpaged, it answered all of them in one body and read every snapshot).
    let next: string | null = null;
    const firstPage = await reads.during(async () => {
      const res = await api(svc.url, 'POST', `/v1/brands/${brand.id}/outcomes?limit=100`);
      expect(res.status).toBe(200);
      expect(res.body.outcomes).toHaveLength(100);
      expect(res.body.has_more).toBe(true);
      next = res.body.next_after;
    });
    expect(firstPage.statements).toBeLessThan(10);
    expect(firstPage.rows).toBeLessThan(POSTS);
    // Following next_after reaches every post once, and the default page is 20.
    const seen = new Set<string>();
    const first = await api(svc.url, 'POST', `/v1/brands/${brand.id}/outcomes`);
    expect(first.body.outcomes).toHaveLength(20);
    for (next = null; ; ) {
      const query: string = next ? `&after=${encodeURIComponent(next)}` : '';
      const res = await api(svc.url, 'POST', `/v1/brands/${brand.id}/outcomes?limit=100${query}`);
      for (const o of res.body.outcomes) seen.add(o.post_id);
      next = res.body.next_after;
      if (!next) break;
    }
    expect(seen.size).toBe(POSTS);
  });
});
