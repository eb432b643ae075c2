import type { ContentContext } from '../context.js';
import type { PostRow } from '../db/stores/posts-store.js';
import type { Verdict } from '../domain.js';
import { hashtagsOf, truncate } from '../text.js';
import { engagementsOf } from './metrics.js';
import { outcomesOf } from './outcomes.js';

export interface ScoredPost {
  post: PostRow;
  text: string;
  excerpt: string;
  hasMedia: boolean;
  engagements: number;
  impressions: number;
  verdict: Verdict;
  /** Engagements ÷ the brand median at the same age; 1 when there is nothing to compare with. */
  score: number;
}

/** Published posts since `since`, each scored against the brand median: the input of digests and voice refresh. */
export async function scoredPosts(
  ctx: ContentContext,
  brandId: string,
  since: string,
  until?: string,
): Promise<ScoredPost[]> {
  const store = ctx.stores.posts;
  const posts = until
    ? await store.publishedBetween(brandId, since, until)
    : await store.publishedOf(brandId, since);
  // Only these posts' snapshots, against the brand's stored baselines (services/outcomes.ts).
  const results = await outcomesOf(ctx.stores, posts);
  return posts.map((post) => {
    const r = results.get(post.id);
    const latest = r?.latest;
    const o = r?.outcome ?? { verdict: 'too_early' as const, ratio: null };
    const parts = post.parts;
    const text = parts.map((p) => p.text).join('\n\n');
    return {
      post,
      text,
      excerpt: truncate(text.split('\n')[0] ?? text, 90),
      hasMedia: (parts[0]?.media.length ?? 0) > 0,
      engagements: latest ? engagementsOf(latest) : 0,
      impressions: latest?.impressions ?? 0,
      verdict: o.verdict,
      score: o.ratio ?? 1,
    };
  });
}

export interface Pattern {
  key: string;
  /** The Brand Memory rule this pattern suggests, when its lift is positive / negative. */
  doRule: string;
  avoidRule: string;
  label: string;
  test: (p: ScoredPost) => boolean;
}

export const PATTERNS: Pattern[] = [
  {
    key: 'question_hook',
    label: 'a question in the opening line',
    doRule: 'Open with a question',
    avoidRule: 'Opening with a question',
    test: (p) => (p.text.split('\n')[0] ?? '').trim().endsWith('?'),
  },
  {
    key: 'number_hook',
    label: 'a number in the opening line',
    doRule: 'Put a number in the opening line',
    avoidRule: 'Numbers in the opening line',
    test: (p) => /\d/.test(p.text.split('\n')[0] ?? ''),
  },
  {
    key: 'media',
    label: 'an image or video',
    doRule: 'Add an image or video',
    avoidRule: 'Posting media-heavy updates',
    test: (p) => p.hasMedia,
  },
  {
    key: 'many_hashtags',
    label: 'more than 3 hashtags',
    doRule: 'Use several hashtags',
    avoidRule: 'More than 3 hashtags',
    test: (p) => hashtagsOf(p.text).length > 3,
  },
];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

export const MIN_PATTERN_SUPPORT = 3;

/**
 * For each pattern: median score of posts with it ÷ median of posts without. Only patterns seen
 * on at least 3 posts on each side count, so one lucky post cannot make a rule.
 */
export function patternLifts(posts: ScoredPost[]) {
  return PATTERNS.flatMap((pattern) => {
    const withIt = posts.filter(pattern.test);
    const without = posts.filter((p) => !pattern.test(p));
    if (withIt.length < MIN_PATTERN_SUPPORT || without.length < MIN_PATTERN_SUPPORT) return [];
    const base = median(without.map((p) => p.score)) || 1;
    const lift = Math.round((median(withIt.map((p) => p.score)) / base) * 100) / 100;
    return [{ pattern, lift, withIt, without }];
  });
}
