import { DAY } from '../../platform/clock.js';
import { notFound } from '../../platform/errors.js';
import type { ContentContext } from '../context.js';
import type { DigestRow } from '../db/stores/misc-stores.js';
import { PLATFORMS, type Platform } from '../domain.js';
import type { DigestView } from '../schemas/insights.js';
import { PLATFORM_NAMES, truncate } from '../text.js';
import { patternLifts, scoredPosts } from './analysis.js';
import { bestTimes } from './best-times.js';
import { requireBrand } from './brands.js';
import { engagementsOf } from './metrics.js';
import { outcomesOf } from './outcomes.js';
import { getConversation } from './themes.js';

const iso = (ms: number) => new Date(ms).toISOString();
const change = (now: number, before: number) =>
  before > 0 ? Math.round(((now - before) / before) * 100) / 100 : null;
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** Totals over published posts in [from, to): latest snapshot of each. One query for posts, one for snapshots. */
async function totals(ctx: ContentContext, brandId: string | null, from: string, to: string) {
  const store = ctx.stores.posts;
  const posts = await store.publishedBetween(brandId, from, to);
  const snaps = await store.snapshotsOf(posts.map((p) => p.id));
  const latest = new Map<string, (typeof snaps)[number]>();
  for (const s of snaps) latest.set(s.post_id, s);
  let impressions = 0;
  let engagements = 0;
  const byPlatform = new Map<string, { posts: number; impressions: number; engagements: number }>();
  let top: { id: string; platform: Platform; engagements: number; excerpt: string } | null = null;
  for (const p of posts) {
    const s = latest.get(p.id);
    const e = s ? engagementsOf(s) : 0;
    impressions += s?.impressions ?? 0;
    engagements += e;
    const b = byPlatform.get(p.platform) ?? { posts: 0, impressions: 0, engagements: 0 };
    b.posts++;
    b.impressions += s?.impressions ?? 0;
    b.engagements += e;
    byPlatform.set(p.platform, b);
    if (!top || e > top.engagements) {
      const text = p.parts[0]?.text ?? '';
      top = {
        id: p.id,
        platform: p.platform,
        engagements: e,
        excerpt: truncate(text.split('\n')[0] ?? '', 90),
      };
    }
  }
  return { posts, impressions, engagements, byPlatform, top };
}

export async function getOverview(
  ctx: ContentContext,
  filter: { brand_id?: string | undefined; days: number },
) {
  const brandId = filter.brand_id ?? null;
  if (brandId) await requireBrand(ctx, brandId);
  const now = ctx.clock.now().getTime();
  const from = iso(now - filter.days * DAY);
  const cur = await totals(ctx, brandId, from, iso(now));
  const prev = await totals(ctx, brandId, iso(now - 2 * filter.days * DAY), from);
  // Every published post of the period counts once, whatever its verdict, so these sum to posts_published.
  const verdicts = { outperforming: 0, on_par: 0, underperforming: 0, not_enough_data: 0, too_early: 0 };
  // Against each brand's stored baselines, reading only the period's posts' snapshots.
  for (const r of (await outcomesOf(ctx.stores, cur.posts)).values()) verdicts[r.outcome.verdict]++;
  const counts = await ctx.stores.approvals.counts(brandId ?? undefined);
  return {
    brand_id: brandId,
    days: filter.days,
    period_start: from,
    period_end: iso(now),
    posts_published: cur.posts.length,
    impressions: cur.impressions,
    engagements: cur.engagements,
    engagement_rate: cur.impressions ? Math.round((cur.engagements / cur.impressions) * 10000) / 10000 : 0,
    change_vs_previous: change(cur.engagements, prev.engagements),
    replies: await ctx.stores.posts.countReplies(brandId, from, iso(now)),
    scheduled: await ctx.stores.posts.countScheduled(brandId),
    pending_approvals: counts.pending,
    by_platform: PLATFORMS.filter((p) => cur.byPlatform.has(p)).map((platform) => ({
      platform,
      ...(cur.byPlatform.get(platform) as { posts: number; impressions: number; engagements: number }),
    })),
    verdicts,
    top_post: cur.top,
  };
}

/** The digest: numbers for the period, then wins, misses, patterns and recommendations, each citing posts and signals. */
export async function buildDigest(
  ctx: ContentContext,
  brandId: string,
  days: number,
): Promise<Omit<DigestView, 'id' | 'run_id' | 'created_at'>> {
  await requireBrand(ctx, brandId);
  const now = ctx.clock.now().getTime();
  const from = iso(now - days * DAY);
  const posts = await scoredPosts(ctx, brandId, from, iso(now));
  const prevTotals = await totals(ctx, brandId, iso(now - 2 * days * DAY), from);
  const history = await scoredPosts(ctx, brandId, iso(now - 56 * DAY), iso(now));
  const signalOf = await ctx.stores.ideas.signalsOf(
    posts.map((p) => p.post.idea_id).filter((x): x is string => !!x),
  );
  const cite = (ps: { id: string; idea_id: string | null }[]) => ({
    post_ids: ps.map((p) => p.id),
    signal_ids: [...new Set(ps.map((p) => signalOf.get(p.idea_id ?? '')).filter((x): x is string => !!x))],
  });
  const impressions = posts.reduce((a, p) => a + p.impressions, 0);
  const engagements = posts.reduce((a, p) => a + p.engagements, 0);
  const replies = await ctx.stores.posts.countReplies(brandId, from, iso(now));

  const ranked = [...posts].sort((a, b) => b.score - a.score);
  const wins = ranked
    .filter((p) => p.verdict === 'outperforming')
    .slice(0, 3)
    .map((p) => ({
      text: `"${p.excerpt}" on ${PLATFORM_NAMES[p.post.platform]} did ${p.score.toFixed(1)}× the brand median.`,
      ...cite([p.post]),
    }));
  const misses = ranked
    .filter((p) => p.verdict === 'underperforming')
    .reverse()
    .slice(0, 3)
    .map((p) => ({
      text: `"${p.excerpt}" on ${PLATFORM_NAMES[p.post.platform]} reached ${p.score.toFixed(1)}× the brand median.`,
      ...cite([p.post]),
    }));
  const patterns = patternLifts(history)
    .filter((l) => l.lift >= 1.2 || l.lift <= 0.8)
    .map((l) => ({
      text: `Posts with ${l.pattern.label} got ${l.lift.toFixed(1)}× the engagement of the rest (${l.withIt.length} vs ${l.without.length} posts, last 8 weeks).`,
      ...cite(l.withIt.slice(0, 5).map((p) => p.post)),
    }));

  const recommendations: DigestView['recommendations'] = [];
  const signals = await ctx.stores.signals.strongest(brandId, iso(now - 14 * DAY), 2);
  for (const s of signals)
    recommendations.push({
      text: `Write about "${s.title}": a ${s.kind} signal at strength ${s.strength.toFixed(1)}.`,
      post_ids: [],
      signal_ids: [s.id],
    });
  const times = await bestTimes(ctx, brandId);
  for (const p of times.platforms.filter((x) => x.source === 'history').slice(0, 2)) {
    const best = p.slots[0];
    if (!best) continue;
    // Best times come from the whole history, so their evidence does too: the first three posts
    // published in the slot. Only when and where posts went out is read, not their text or snapshots.
    const inSlot: { id: string; idea_id: string | null }[] = [];
    for (const h of await ctx.stores.posts.publishedTimesOf(brandId, p.platform)) {
      const d = new Date(h.published_at);
      if (d.getDay() === best.weekday && d.getHours() === best.hour) inSlot.push(h);
      if (inSlot.length === 3) break;
    }
    recommendations.push({
      text: `Schedule ${PLATFORM_NAMES[p.platform]} posts for ${DAY_NAMES[best.weekday]} at ${String(best.hour).padStart(2, '0')}:00 (${times.timezone}), your best slot.`,
      ...cite(inSlot),
    });
  }
  const conv = await getConversation(ctx, brandId, days);
  const topTheme = conv.themes[0];
  if (topTheme)
    recommendations.push({
      text: `${topTheme.label} lead the replies (${topTheme.count}); answer them in a post — e.g. "${topTheme.examples[0]?.text ?? ''}".`,
      post_ids: [...new Set(topTheme.examples.map((e) => e.post_id))],
      signal_ids: [],
    });
  const top = ranked[0];
  const delta = change(engagements, prevTotals.engagements);
  const headline = posts.length
    ? `${posts.length} posts, ${engagements} engagements${delta === null ? '' : ` (${delta >= 0 ? '+' : ''}${Math.round(delta * 100)}% vs the ${days} days before)`}${top ? `; best: "${top.excerpt}" at ${top.score.toFixed(1)}× median` : ''}.`
    : `No posts published in the last ${days} days.`;
  return {
    brand_id: brandId,
    period_start: from,
    period_end: iso(now),
    headline,
    stats: {
      posts_published: posts.length,
      impressions,
      engagements,
      engagement_rate: impressions ? Math.round((engagements / impressions) * 10000) / 10000 : 0,
      change_vs_previous: delta,
      replies,
    },
    wins,
    misses,
    patterns,
    recommendations,
  };
}

export async function saveDigest(
  ctx: ContentContext,
  body: Omit<DigestView, 'id' | 'run_id' | 'created_at'>,
  runId: string | null,
): Promise<DigestView> {
  const row: DigestRow = {
    id: ctx.ids.make('dig'),
    brand_id: body.brand_id,
    run_id: runId,
    period_start: body.period_start,
    period_end: body.period_end,
    body,
    created_at: ctx.clock.now().toISOString(),
  };
  await ctx.stores.digests.insert(row);
  return { ...body, id: row.id, run_id: runId, created_at: row.created_at };
}

/** `get_digest`: the latest digest; 404 until one has been generated. */
export async function getLatestDigest(ctx: ContentContext, brandId: string): Promise<DigestView> {
  await requireBrand(ctx, brandId);
  const row = await ctx.stores.digests.latest(brandId);
  if (!row)
    throw notFound(`digest for brand '${brandId}' (generate one with POST /v1/brands/${brandId}/digest)`);
  return {
    ...row.body,
    id: row.id,
    run_id: row.run_id,
    created_at: row.created_at,
  };
}
