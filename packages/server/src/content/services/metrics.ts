import { type Platform, SNAPSHOT_AGES_H, VERDICT_THRESHOLD, type Verdict } from '../domain.js';
import { hash32, hashtagsOf, seededRandom } from '../text.js';

export interface Counts {
  impressions: number;
  likes: number;
  comments: number;
  shares: number;
  clicks: number;
}
export interface Snapshot extends Counts {
  post_id: string;
  age_h: number;
  taken_at: string;
}

export const engagementsOf = (m: Pick<Counts, 'likes' | 'comments' | 'shares' | 'clicks'>) =>
  m.likes + m.comments + m.shares + m.clicks;

const REACH: Record<Platform, number> = { x: 900, linkedin: 1400, instagram: 1700, threads: 600 };

/**
 * How well a sandbox post does, from its text. The patterns are the ones voice_refresh looks
 * for (a question hook, media, few hashtags), so the demo has real lift to find.
 */
export function simulatedQuality(
  postId: string,
  text: string,
  hasMedia: boolean,
  platform: Platform,
  publishedAt: Date,
): number {
  const rand = seededRandom(hash32(postId));
  let q = (0.55 + rand() * 0.9) * timeFactor(platform, publishedAt);
  const first = text.split('\n')[0] ?? '';
  if (first.trim().endsWith('?')) q *= 1.35;
  if (/\d/.test(first)) q *= 1.15;
  if (hasMedia) q *= 1.2;
  if (hashtagsOf(text).length > Math.max(2, platform === 'instagram' ? 8 : 3)) q *= 0.7;
  return q;
}

/**
 * Audiences are awake at some hours more than others (server local time), so the sandbox
 * history has real best times to find: weekday work hours for LinkedIn and X, evenings for
 * Instagram, nights are quiet everywhere.
 */
function timeFactor(platform: Platform, at: Date): number {
  const h = at.getHours();
  const weekend = at.getDay() === 0 || at.getDay() === 6;
  if (h < 6 || h > 22) return 0.5;
  if (platform === 'instagram') return h >= 18 ? 1.4 : h >= 11 && h <= 13 ? 1.2 : 0.9;
  const morning = h >= 8 && h <= 10 ? 1.45 : h >= 11 && h <= 13 ? 1.15 : 0.85;
  return weekend ? morning * 0.7 : morning;
}

/** Cumulative share of a post's final reach reached at `ageH` hours. */
const growth = (ageH: number) => 1 - Math.exp(-ageH / 14);

export function simulatedCounts(postId: string, platform: Platform, quality: number, ageH: number): Counts {
  const rand = seededRandom(hash32(`${postId}:rates`));
  const total = REACH[platform] * quality;
  const impressions = Math.round(total * growth(ageH));
  const rate = (0.025 + rand() * 0.02) * Math.min(2, quality);
  const eng = impressions * rate;
  return {
    impressions,
    likes: Math.round(eng * 0.62),
    comments: Math.round(eng * 0.1),
    shares: Math.round(eng * 0.08),
    clicks: Math.round(eng * 0.2),
  };
}

const median = (values: number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

export interface SnapshotWithPlatform extends Snapshot {
  platform: string;
}

/** The brand's median curve: per snapshot age, the median engagements of other posts on the platform. */
export function baselineCurve(all: SnapshotWithPlatform[], platform: string, excludePostId: string | null) {
  const byAge = new Map<number, number[]>();
  const posts = new Set<string>();
  for (const s of all) {
    if (s.platform !== platform || s.post_id === excludePostId) continue;
    posts.add(s.post_id);
    const list = byAge.get(s.age_h) ?? [];
    list.push(engagementsOf(s));
    byAge.set(s.age_h, list);
  }
  const curve = SNAPSHOT_AGES_H.filter((a) => byAge.has(a)).map((age_h) => ({
    age_h,
    engagements: Math.round(median(byAge.get(age_h) ?? []) * 10) / 10,
    posts: byAge.get(age_h)?.length ?? 0,
  }));
  return { curve, comparedWith: posts.size };
}

export type CurvePoint = { age_h: number; engagements: number; posts: number };

/**
 * The baseline at one age. Snapshots are taken at the standard ages, but a post resolved early
 * gets a final snapshot at the whole hour it was resolved (say 2 h): it is compared with the
 * median curve interpolated between the standard ages around it, on the posts both ages have.
 */
export function baselineAt(curve: CurvePoint[], age: number): CurvePoint | undefined {
  const exact = curve.find((c) => c.age_h === age);
  if (exact) return exact;
  const before = curve.filter((c) => c.age_h < age).at(-1);
  const after = curve.find((c) => c.age_h > age);
  if (!before || !after) return undefined;
  const t = (age - before.age_h) / (after.age_h - before.age_h);
  return {
    age_h: age,
    engagements: Math.round((before.engagements + (after.engagements - before.engagements) * t) * 10) / 10,
    posts: Math.min(before.posts, after.posts),
  };
}

export interface OutcomeCalc {
  verdict: Verdict;
  ratio: number | null;
  age_h: number | null;
  engagements: number | null;
  baseline_engagements: number | null;
  compared_with: number;
}

export function outcomeOf(
  own: Snapshot[],
  all: SnapshotWithPlatform[],
  platform: string,
  postId: string,
): OutcomeCalc {
  const { curve, comparedWith } = baselineCurve(all, platform, postId);
  return outcomeAgainst(own, curve, comparedWith);
}

/** The outcome of a post with snapshots `own` against the brand's median curve (without the post). */
export function outcomeAgainst(own: Snapshot[], curve: CurvePoint[], comparedWith: number): OutcomeCalc {
  const latest = own[own.length - 1];
  if (!latest)
    return {
      verdict: 'too_early',
      ratio: null,
      age_h: null,
      engagements: null,
      baseline_engagements: null,
      compared_with: comparedWith,
    };
  const engagements = engagementsOf(latest);
  const point = baselineAt(curve, latest.age_h);
  if (!point || point.posts < VERDICT_THRESHOLD.minComparablePosts)
    return {
      verdict: 'not_enough_data',
      ratio: null,
      age_h: latest.age_h,
      engagements,
      baseline_engagements: point?.engagements ?? null,
      compared_with: comparedWith,
    };
  const ratio = point.engagements > 0 ? engagements / point.engagements : engagements > 0 ? Infinity : 1;
  const verdict: Verdict =
    ratio >= VERDICT_THRESHOLD.above
      ? 'outperforming'
      : ratio <= VERDICT_THRESHOLD.below
        ? 'underperforming'
        : 'on_par';
  return {
    verdict,
    ratio: Number.isFinite(ratio) ? Math.round(ratio * 100) / 100 : null,
    age_h: latest.age_h,
    engagements,
    baseline_engagements: point.engagements,
    compared_with: comparedWith,
  };
}
