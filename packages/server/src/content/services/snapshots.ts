import { HOUR } from '../../platform/clock.js';
import type { ContentContext } from '../context.js';
import type { ContentStores } from '../db/stores/index.js';
import type { PostRow } from '../db/stores/posts-store.js';
import { SETTLE_AGE_H, SNAPSHOT_AGES_H } from '../domain.js';
import { hash32, pick, seededRandom } from '../text.js';
import { recordSnapshots } from './baselines.js';
import { simulatedCounts, simulatedQuality } from './metrics.js';
import { classifyReply } from './themes.js';

const REPLY_POOL = [
  'How long did this take to set up?',
  'Does this work for small teams too?',
  'What do you use to track this?',
  'Love this, thanks for sharing!',
  'Great breakdown, saving it.',
  'This is exactly what I needed today.',
  'Could you share a template for this?',
  'Would love a deeper dive on the numbers.',
  'Not sure this scales, but interesting.',
  'Feels too expensive for a small shop.',
];
const AUTHORS = [
  '@maya',
  '@dev_tom',
  '@ops_priya',
  '@lena.codes',
  '@sam_builds',
  '@kofi',
  '@jules',
  '@ana_pm',
];

export function simulatedReplies(postId: string, comments: number) {
  const rand = seededRandom(hash32(`${postId}:replies`));
  const n = Math.min(6, Math.round(comments / 2));
  return Array.from({ length: n }, (_, i) => {
    const text = pick(REPLY_POOL, Math.floor(rand() * 1000) + i);
    return { author: pick(AUTHORS, Math.floor(rand() * 1000)), text, theme: classifyReply(text) };
  });
}

/** Whole hours since publishing, capped at the settle age: the age a snapshot taken at `now` has. */
export const ageAt = (post: PostRow, now: Date) =>
  Math.min(SETTLE_AGE_H, Math.floor((now.getTime() - Date.parse(post.published_at ?? '')) / HOUR));

/**
 * Writes the simulated snapshots of a sandbox post at the given ages (whole hours after
 * publishing), each timestamped at its exact age, so a curve is the same however the clock
 * got there. Ages it already has are skipped. Replies arrive with the 24 h snapshot.
 * Returns the ages written. Call inside a transaction.
 */
export async function takeSimulatedSnapshots(
  ctx: ContentContext,
  tx: ContentStores,
  post: PostRow,
  ages: readonly number[],
  have: ReadonlySet<string>,
): Promise<number[]> {
  const store = tx.posts;
  const published = Date.parse(post.published_at ?? '');
  const parts = post.parts;
  const text = parts.map((p) => p.text).join('\n\n');
  const platform = post.platform;
  const quality = simulatedQuality(
    post.id,
    text,
    (parts[0]?.media.length ?? 0) > 0,
    platform,
    new Date(published),
  );
  const snapshots = ages
    .filter((age) => !have.has(`${post.id}:${age}`))
    .map((age) => ({
      post_id: post.id,
      age_h: age,
      taken_at: new Date(published + age * HOUR).toISOString(),
      ...simulatedCounts(post.id, platform, quality, age),
    }));
  const written = await recordSnapshots(tx, post, snapshots);
  for (const counts of snapshots) {
    if (counts.age_h !== 24 || !written.includes(24)) continue;
    for (const [i, r] of simulatedReplies(post.id, counts.comments).entries())
      await store.addReply({
        id: ctx.ids.make('rpl'),
        post_id: post.id,
        brand_id: post.brand_id,
        author: r.author,
        text: r.text,
        theme: r.theme,
        created_at: new Date(published + (2 + i * 3) * HOUR).toISOString(),
      });
  }
  return written;
}

/** The standard snapshot ages a post has reached at `now`. */
export const dueAges = (post: PostRow, now: Date) => {
  const age = (now.getTime() - Date.parse(post.published_at ?? '')) / HOUR;
  return SNAPSHOT_AGES_H.filter((a) => a <= age);
};

/** A live reply's row id: the same platform reply read twice is stored once. */
const liveReplyId = (platform: string, externalId: string) =>
  `rpl_${platform}_${externalId.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 120);

/**
 * Live mode: reads the platform's counts (and replies, where the provider can list them) for each
 * published live post that has come to a standard snapshot age (1, 3, 6, … 72 h) it has no
 * snapshot for, on the same schedule as the sandbox. The platform only says what the numbers are
 * now, so one snapshot is written at the latest age reached (ages missed while the server was
 * down stay missing rather than made up). Network calls happen outside any transaction; a post the
 * platform cannot answer for now is left for the next pass. Returns the snapshots written and the
 * posts that reached the settle age.
 */
export async function takeLiveSnapshots(
  ctx: ContentContext,
  posts: PostRow[],
  now: Date,
): Promise<{ snapshots: number; settled: PostRow[] }> {
  const publisher = ctx.publisher;
  if (!publisher.metrics) return { snapshots: 0, settled: [] };
  const store = ctx.stores.posts;
  const have = new Set(
    (await store.snapshotsOf(posts.map((p) => p.id))).map((s) => `${s.post_id}:${s.age_h}`),
  );
  let snapshots = 0;
  const settled: PostRow[] = [];
  for (const post of posts) {
    const age = dueAges(post, now).at(-1);
    if (age === undefined || have.has(`${post.id}:${age}`) || !post.external_id) continue;
    const ref = {
      channelId: post.channel_id,
      platform: post.platform,
      externalId: post.external_id,
    };
    let counts: Awaited<ReturnType<NonNullable<typeof publisher.metrics>>>;
    let replies: Awaited<ReturnType<NonNullable<typeof publisher.replies>>> = null;
    try {
      counts = await publisher.metrics(ref);
      if (publisher.replies) replies = await publisher.replies(ref);
    } catch (err) {
      ctx.logger.warn(
        { err, postId: post.id, platform: post.platform },
        'could not read metrics; trying again on the next pass',
      );
      continue;
    }
    await ctx.transaction(async (tx) => {
      const s = tx.posts;
      await recordSnapshots(tx, post, [
        { post_id: post.id, age_h: age, taken_at: now.toISOString(), ...counts },
      ]);
      for (const r of replies ?? []) {
        const id = liveReplyId(post.platform, r.externalId);
        if (await s.getReply(id)) continue;
        await s.addReply({
          id,
          post_id: post.id,
          brand_id: post.brand_id,
          author: r.author,
          text: r.text,
          theme: classifyReply(r.text),
          created_at: (r.createdAt ?? now).toISOString(),
        });
      }
    });
    snapshots++;
    if (age === SETTLE_AGE_H) settled.push(post);
  }
  return { snapshots, settled };
}
