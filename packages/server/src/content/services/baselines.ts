import type { BrandBaselines, PlatformBaseline } from '../db/stores/brand-baselines-store.js';
import type { ContentStores } from '../db/stores/index.js';
import type { MetricsRow, PostRow } from '../db/stores/posts-store.js';
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
 * a request, so each brand keeps, in brand_baselines, the sorted engagements per platform and
 * standard age and the number of posts with a snapshot: every snapshot is written through
 * recordSnapshots, which folds it in within the same transaction. A listed post's verdict then
 * needs that one row and the post's own snapshots (to leave the post out of its own median), and
 * is the same figure metrics.ts's baselineCurve gives from all the snapshots.
 */

const STANDARD_AGES = new Set<number>(SNAPSHOT_AGES_H);

/** Inserts `value` into the ascending array `sorted`, keeping it sorted. */
function insertSorted(sorted: number[], value: number) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] ?? 0) <= value) lo = mid + 1;
    else hi = mid;
  }
  sorted.splice(lo, 0, value);
}

function fold(baselines: BrandBaselines, platform: string, snapshot: Snapshot, firstOfPost: boolean) {
  const b = baselines[platform] ?? { posts: 0, curve: {} };
  baselines[platform] = b;
  if (firstOfPost) b.posts++;
  if (!STANDARD_AGES.has(snapshot.age_h)) return;
  const values = b.curve[String(snapshot.age_h)] ?? [];
  b.curve[String(snapshot.age_h)] = values;
  insertSorted(values, engagementsOf(snapshot));
}

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
  const baselines = await store.lock(post.brand_id);
  const posts = tx.posts;
  const have = new Set((await posts.snapshots(post.id)).map((s) => s.age_h));
  const written: number[] = [];
  for (const s of snapshots) {
    if (have.has(s.age_h)) continue;
    await posts.addSnapshot(s);
    fold(baselines, post.platform, s, have.size === 0);
    have.add(s.age_h);
    written.push(s.age_h);
  }
  if (written.length > 0) await store.save(post.brand_id, baselines);
  return written;
}

/**
 * Recomputes a brand's baselines from all its snapshots: for snapshots written in bulk without
 * recordSnapshots (the demo seed), once at the end of their transaction.
 */
export async function rebuildBaselines(tx: ContentStores, brandId: string) {
  const store = tx.brandBaselines;
  await store.lock(brandId);
  const baselines: BrandBaselines = {};
  const seen = new Set<string>();
  for (const s of await tx.posts.brandSnapshots(brandId)) {
    fold(baselines, s.platform, s, !seen.has(s.post_id));
    seen.add(s.post_id);
  }
  await store.save(brandId, baselines);
}

/** The median of ascending `sorted` with one occurrence of `leaveOut` taken out (none when undefined). */
function medianWithout(sorted: number[], leaveOut: number | undefined): { median: number; count: number } {
  const skip = leaveOut === undefined ? -1 : sorted.indexOf(leaveOut);
  const count = skip < 0 ? sorted.length : sorted.length - 1;
  const at = (k: number) => sorted[skip >= 0 && k >= skip ? k + 1 : k] ?? 0;
  const mid = Math.floor(count / 2);
  return { median: count % 2 ? at(mid) : (at(mid - 1) + at(mid)) / 2, count };
}

/** The brand's median curve for a post: its platform's baseline without the post's own snapshots. */
export function curveWithout(
  b: PlatformBaseline | undefined,
  own: Snapshot[],
): { curve: CurvePoint[]; comparedWith: number } {
  if (!b) return { curve: [], comparedWith: 0 };
  const ownAt = new Map(own.map((s) => [s.age_h, engagementsOf(s)]));
  const curve: CurvePoint[] = [];
  for (const age_h of SNAPSHOT_AGES_H) {
    const values = b.curve[String(age_h)];
    if (!values) continue;
    const { median, count } = medianWithout(values, ownAt.get(age_h));
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

/**
 * For a page of posts: each post's own snapshots, the brand's curve without it and its outcome,
 * from one read of each brand's baselines and one of the page's snapshots.
 */
export async function pageOutcomes(db: ContentStores, page: PostRow[]): Promise<Map<string, PostOutcome>> {
  const snapshots = await db.posts.snapshotsOf(page.map((p) => p.id));
  const baselines = await db.brandBaselines.ofBrands([...new Set(page.map((p) => p.brand_id))]);
  const out = new Map<string, PostOutcome>();
  for (const p of page) {
    const own = snapshots.filter((s) => s.post_id === p.id);
    const { curve, comparedWith } = curveWithout(baselines.get(p.brand_id)?.[p.platform], own);
    const outcome = p.status === 'published' ? outcomeAgainst(own, curve, comparedWith) : NOT_PUBLISHED;
    out.set(p.id, { own, curve, outcome });
  }
  return out;
}

/** One post's outcome against its brand's stored baselines (GET /v1/posts/{id}). */
export async function postOutcome(db: ContentStores, post: PostRow): Promise<PostOutcome> {
  return (await pageOutcomes(db, [post])).get(post.id) ?? { own: [], curve: [], outcome: NOT_PUBLISHED };
}
