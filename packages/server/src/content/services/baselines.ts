import type {
  AgeSummary,
  BrandBaselines,
  BrandHistograms,
  PlatformBaseline,
  StoredBaselines,
} from '../db/stores/brand-baselines-store.js';
import type { ContentStores } from '../db/stores/index.js';
import type {
  AgeCounts,
  MetricsRow,
  PostRow,
  PostsWithLatestSnapshots,
  PostsWithVerdictInputs,
} from '../db/stores/posts-store.js';
import { SNAPSHOT_AGES_H } from '../domain.js';
import {
  type CurvePoint,
  engagementsOf,
  type OutcomeCalc,
  outcomeAgainst,
  type Snapshot,
} from './metrics.js';

/*
 * A post's verdict compares it with the median of the brand's other posts on the platform at the
 * same age. Reading every snapshot of the brand for that made listing posts cost hundreds of rows
 * a request, so each brand keeps, in brand_baselines, what a verdict needs per platform and
 * standard age: every snapshot is written through recordSnapshots, which folds it in within the
 * same transaction. A listed post's verdict then needs that one row and the post's own snapshots
 * (to leave the post out of its own median).
 *
 * The row must not grow with the brand (a brand with 100,000 posts would read megabytes on every
 * list), so it holds two bounded things:
 * - `histogram`: per age, counts per value bucket. Values below 256 engagements have a bucket each,
 *   so they are exact; above, a bucket spans 1/128 of its power of two and stands for its middle,
 *   within 0.4% of any value in it. At most 256 + 128 buckets per doubling of the largest value,
 *   however many posts. Only the writer reads it.
 * - `baselines`: per age, the count and the values at the few sorted positions around the median,
 *   computed from the histogram after each write. Leaving one value out moves the median by at
 *   most one position, so these are all that the median without the post needs: the same figure
 *   metrics.ts's baselineCurve gives from every snapshot, exactly while the values are below 256,
 *   within 0.4% above (a verdict can differ only for a ratio within 0.4% of a threshold).
 */

const STANDARD_AGES = new Set<number>(SNAPSHOT_AGES_H);
const EXACT_BELOW = 256;
/** Buckets per doubling above EXACT_BELOW: 2^7, so a bucket spans at most 1/128 of its values. */
const SIGNIFICANT_BITS = 7;

const highestBit = (v: number) => (v < 2 ** 32 ? 31 - Math.clz32(v) : Math.floor(Math.log2(v)));
const bucketWidth = (bucket: number) => 2 ** Math.max(0, highestBit(bucket) - SIGNIFICANT_BITS);

/** The bucket (its lowest value) that engagements `v` count in. */
export function bucketOf(v: number): number {
  if (v < EXACT_BELOW) return v;
  const width = bucketWidth(v);
  return Math.floor(v / width) * width;
}

/** The value a bucket stands for: itself when exact, else its middle. */
const standsFor = (bucket: number) =>
  bucket < EXACT_BELOW ? bucket : bucket + (bucketWidth(bucket) - 1) / 2;

/** The value engagements `v` count as in the baselines. */
const counted = (v: number) => standsFor(bucketOf(v));

/** The sorted positions a median with or without one of `n` values reads (see medianWithout). */
const window = (n: number) => ({
  lo: Math.max(0, Math.floor((n - 1) / 2) - 1),
  hi: Math.min(n - 1, Math.floor(n / 2) + 1),
});

/** The summary of one age's histogram: a walk over its buckets, not its values. */
function summarise(histogram: Record<string, number>): AgeSummary {
  const buckets = Object.keys(histogram)
    .map(Number)
    .sort((x, y) => x - y);
  const n = buckets.reduce((sum, b) => sum + (histogram[String(b)] ?? 0), 0);
  const { lo, hi } = window(n);
  const mid: number[] = [];
  let first = 0;
  for (const b of buckets) {
    const last = first + (histogram[String(b)] ?? 0) - 1;
    for (let k = Math.max(first, lo); k <= Math.min(last, hi); k++) mid.push(standsFor(b));
    first = last + 1;
    if (first > hi) break;
  }
  return { n, lo, mid };
}

/** Counts engagements `value` at `age_h` on `platform`. */
function count(histograms: BrandHistograms, platform: string, age_h: number, value: number) {
  const byAge = histograms[platform] ?? {};
  histograms[platform] = byAge;
  const h = byAge[String(age_h)] ?? {};
  byAge[String(age_h)] = h;
  const b = String(bucketOf(value));
  h[b] = (h[b] ?? 0) + 1;
}

/** The summaries of every platform and age, from the histograms and the post counts. */
function summariesOf(histograms: BrandHistograms, posts: Record<string, number>): BrandBaselines {
  const out: BrandBaselines = {};
  for (const [platform, n] of Object.entries(posts)) {
    const curve: Record<string, AgeSummary> = {};
    for (const [age, h] of Object.entries(histograms[platform] ?? {})) curve[age] = summarise(h);
    out[platform] = { posts: n, curve };
  }
  return out;
}

/** A row still in migration 017's form (whole sorted lists): its histograms, counted as now. */
function histogramsOfLegacy(stored: StoredBaselines): BrandHistograms {
  const histograms: BrandHistograms = {};
  for (const [platform, b] of Object.entries(stored))
    for (const [age, values] of Object.entries(b.curve))
      if (Array.isArray(values)) for (const v of values) count(histograms, platform, Number(age), v);
  return histograms;
}

/** The summary positions of a whole sorted list (017's form), counted as now. */
function slice(sorted: number[]) {
  const { lo, hi } = window(sorted.length);
  return { lo, mid: sorted.slice(lo, hi + 1).map(counted) };
}

/** The summaries of a stored row, whichever form it is in. */
export function summariesOfStored(stored: StoredBaselines): BrandBaselines {
  const out: BrandBaselines = {};
  for (const [platform, b] of Object.entries(stored)) {
    const curve: Record<string, AgeSummary> = {};
    for (const [age, v] of Object.entries(b.curve))
      curve[age] = Array.isArray(v) ? { n: v.length, ...slice(v) } : v;
    out[platform] = { posts: b.posts, curve };
  }
  return out;
}

const postCounts = (stored: StoredBaselines) =>
  Object.fromEntries(Object.entries(stored).map(([platform, b]) => [platform, b.posts]));

/**
 * Writes snapshots of one published post and folds them into its brand's baselines, in the
 * caller's transaction: every snapshot is written through here. Ages the post already has are
 * skipped. The brand's row is locked first, so the post's snapshots read next are current on
 * every instance. Returns the ages written.
 */
export async function recordSnapshots(
  tx: ContentStores,
  post: Pick<PostRow, 'id' | 'brand_id' | 'platform'>,
  snapshots: MetricsRow[],
): Promise<number[]> {
  if (snapshots.length === 0) return [];
  const store = tx.brandBaselines;
  const { stored, histogram } = await store.lock(post.brand_id);
  const histograms = histogram ?? histogramsOfLegacy(stored);
  const posts = postCounts(stored);
  const have = new Set((await tx.posts.snapshots(post.id)).map((s) => s.age_h));
  const written: number[] = [];
  for (const s of snapshots) {
    if (have.has(s.age_h)) continue;
    await tx.posts.addSnapshot(s);
    if (have.size === 0) posts[post.platform] = (posts[post.platform] ?? 0) + 1;
    if (STANDARD_AGES.has(s.age_h)) count(histograms, post.platform, s.age_h, engagementsOf(s));
    have.add(s.age_h);
    written.push(s.age_h);
  }
  if (written.length > 0) await store.save(post.brand_id, summariesOf(histograms, posts), histograms);
  return written;
}

/**
 * Recomputes a brand's baselines from all its snapshots: for snapshots written in bulk without
 * recordSnapshots (the demo seed), once at the end of their transaction.
 */
export async function rebuildBaselines(tx: ContentStores, brandId: string) {
  const store = tx.brandBaselines;
  await store.lock(brandId);
  const histograms: BrandHistograms = {};
  const posts: Record<string, number> = {};
  const seen = new Set<string>();
  for (const s of await tx.posts.brandSnapshots(brandId)) {
    if (!seen.has(s.post_id)) posts[s.platform] = (posts[s.platform] ?? 0) + 1;
    seen.add(s.post_id);
    if (STANDARD_AGES.has(s.age_h)) count(histograms, s.platform, s.age_h, engagementsOf(s));
  }
  await store.save(brandId, summariesOf(histograms, posts), histograms);
}

/**
 * The median of an age's values with one occurrence of `leaveOut` taken out (none when
 * undefined). Without the value at sorted position j, position k holds what k + 1 held from j
 * on; j is the first position holding `leaveOut`, so k < j exactly when position k holds less.
 * The caller leaves out only a value the summary counts (the post's own snapshot).
 */
function medianWithout(s: AgeSummary, leaveOut: number | undefined): { median: number; count: number } {
  const get = (k: number) => s.mid[k - s.lo] ?? 0;
  const count = leaveOut === undefined ? s.n : s.n - 1;
  const at = (k: number) => (leaveOut === undefined || get(k) < leaveOut ? get(k) : get(k + 1));
  const mid = Math.floor(count / 2);
  return { median: count % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2, count };
}

/** The brand's median curve for a post: its platform's baseline without the post's own snapshots. */
export function curveWithout(
  b: PlatformBaseline | undefined,
  own: AgeCounts[],
): { curve: CurvePoint[]; comparedWith: number } {
  if (!b) return { curve: [], comparedWith: 0 };
  const ownAt = new Map(own.map((s) => [s.age_h, counted(engagementsOf(s))]));
  const curve: CurvePoint[] = [];
  for (const age_h of SNAPSHOT_AGES_H) {
    const summary = b.curve[String(age_h)];
    if (!summary || summary.n === 0) continue;
    const { median, count } = medianWithout(summary, ownAt.get(age_h));
    if (count > 0) curve.push({ age_h, engagements: Math.round(median * 10) / 10, posts: count });
  }
  return { curve, comparedWith: b.posts - (own.length > 0 ? 1 : 0) };
}

export const NOT_PUBLISHED: OutcomeCalc = {
  verdict: 'too_early',
  ratio: null,
  age_h: null,
  engagements: null,
  baseline_engagements: null,
  compared_with: 0,
};

export interface PostOutcome {
  /** The post's own snapshots, oldest first. */
  own: Snapshot[];
  /** The brand's median curve on the post's platform, without the post. */
  curve: CurvePoint[];
  outcome: OutcomeCalc;
}

/** A listed post's outcome: what a list shows of a post, its latest snapshot, and its verdict. */
export interface ListedOutcome {
  latest: Snapshot | undefined;
  outcome: OutcomeCalc;
}

/**
 * For a page of posts: each post's own snapshots, the brand's curve without it and its outcome,
 * from one read of each brand's baselines and one of the page's snapshots.
 */
export async function pageOutcomes(db: ContentStores, page: PostRow[]): Promise<Map<string, PostOutcome>> {
  // Two independent reads: on PostgreSQL they go out together instead of one after the other.
  const [snapshots, baselines] = await Promise.all([
    db.posts.snapshotsOf(page.map((p) => p.id)),
    db.brandBaselines.ofBrands([...new Set(page.map((p) => p.brand_id))]),
  ]);
  return outcomesFrom({ posts: page, snapshots, baselines });
}

const summariesOfBrands = (stored: Map<string, StoredBaselines>) =>
  new Map([...stored].map(([brandId, row]) => [brandId, summariesOfStored(row)]));

/**
 * One post's curve and outcome: the brand's median without the post's own snapshots (`ages`, all
 * of them), the verdict from its latest. outcomeAgainst reads only the latest of `own`.
 */
function outcomeOf(
  p: PostRow,
  latest: Snapshot | undefined,
  ages: AgeCounts[],
  baselines: Map<string, BrandBaselines>,
) {
  const { curve, comparedWith } = curveWithout(baselines.get(p.brand_id)?.[p.platform], ages);
  const outcome =
    p.status === 'published' ? outcomeAgainst(latest ? [latest] : [], curve, comparedWith) : NOT_PUBLISHED;
  return { curve, outcome };
}

/** The outcomes of posts read with every snapshot (posts store, getWithVerdictInputs). */
export function outcomesFrom({ posts, snapshots, baselines: stored }: PostsWithVerdictInputs) {
  const baselines = summariesOfBrands(stored);
  // Grouped once: filtering every snapshot for every post was posts × snapshots on each list.
  const ownOf = new Map<string, Snapshot[]>();
  for (const s of snapshots) {
    const list = ownOf.get(s.post_id);
    if (list) list.push(s);
    else ownOf.set(s.post_id, [s]);
  }
  const out = new Map<string, PostOutcome>();
  for (const p of posts) {
    const own = ownOf.get(p.id) ?? [];
    out.set(p.id, { own, ...outcomeOf(p, own.at(-1), own, baselines) });
  }
  return out;
}

/**
 * The outcomes of a page of posts read with their latest snapshots (posts store,
 * listWithVerdictInputs): the same verdicts as outcomesFrom, from less of each snapshot.
 */
export function listedOutcomes({ posts, latest, ages, baselines: stored }: PostsWithLatestSnapshots) {
  const baselines = summariesOfBrands(stored);
  const out = new Map<string, ListedOutcome>();
  for (const p of posts) {
    const last = latest.get(p.id);
    out.set(p.id, { latest: last, outcome: outcomeOf(p, last, ages.get(p.id) ?? [], baselines).outcome });
  }
  return out;
}

/** One post's outcome against its brand's stored baselines (GET /v1/posts/{id}). */
export async function postOutcome(db: ContentStores, post: PostRow): Promise<PostOutcome> {
  return (await pageOutcomes(db, [post])).get(post.id) ?? { own: [], curve: [], outcome: NOT_PUBLISHED };
}
