import type { ContentStores } from '../db/stores/index.js';
import type { PostRow } from '../db/stores/posts-store.js';
import { curveWithout, NOT_PUBLISHED, summariesOfStored } from './baselines.js';
import { type OutcomeCalc, outcomeAgainst, type Snapshot } from './metrics.js';

/**
 * Outcomes of many posts at once (the outcomes endpoint, the overview's verdicts, digests and
 * voice refresh). Each used to read every snapshot of the brand and compute the median curve
 * again for every post: for a brand with years of posts that was unbounded memory and
 * posts × snapshots work on one request, holding the event loop. Here each brand's stored
 * baselines (services/baselines.ts) are read once and the posts' own snapshots a chunk at a
 * time, so the work is linear in the posts asked about and the snapshots in memory at once are
 * bounded by the chunk. The figures are those metrics.ts's outcomeOf gives from all snapshots.
 */

/** Posts whose snapshots are read per statement: bounds memory and stays far below both engines' parameter limits. */
export const OUTCOME_CHUNK = 500;

export interface PostResult {
  /** The post's latest snapshot, if it has one. */
  latest: Snapshot | undefined;
  outcome: OutcomeCalc;
}

export async function outcomesOf(db: ContentStores, posts: PostRow[]): Promise<Map<string, PostResult>> {
  const out = new Map<string, PostResult>();
  if (posts.length === 0) return out;
  const stored = await db.brandBaselines.ofBrands([...new Set(posts.map((p) => p.brand_id))]);
  // Rows still in migration 017's form are summarised on read, as pageOutcomes does.
  const baselines = new Map([...stored].map(([brandId, row]) => [brandId, summariesOfStored(row)]));
  for (let i = 0; i < posts.length; i += OUTCOME_CHUNK) {
    const chunk = posts.slice(i, i + OUTCOME_CHUNK);
    const own = new Map<string, Snapshot[]>();
    // Ordered by post and age, so each post's list is oldest first.
    for (const s of await db.posts.snapshotsOf(chunk.map((p) => p.id))) {
      const list = own.get(s.post_id);
      if (list) list.push(s);
      else own.set(s.post_id, [s]);
    }
    for (const p of chunk) {
      const snaps = own.get(p.id) ?? [];
      const { curve, comparedWith } = curveWithout(baselines.get(p.brand_id)?.[p.platform], snaps);
      out.set(p.id, {
        latest: snaps[snaps.length - 1],
        outcome: p.status === 'published' ? outcomeAgainst(snaps, curve, comparedWith) : NOT_PUBLISHED,
      });
    }
  }
  return out;
}
