import { HOUR } from '../../platform/clock.js';
import type { ContentContext } from '../context.js';
import { fromJson } from '../db/stores/paging.js';
import { type PostRow, postsStore } from '../db/stores/posts-store.js';
import { type Platform, SANDBOX, SETTLE_AGE_H, SNAPSHOT_AGES_H } from '../domain.js';
import type { AdvanceResultView } from '../schemas/workspace.js';
import { hash32, pick, seededRandom } from '../text.js';
import { fireDueAutomations } from './automations.js';
import { conflict } from './errors.js';
import { simulatedCounts, simulatedQuality } from './metrics.js';
import { publishPosts, settle } from './posts.js';
import { classifyReply } from './themes.js';
import { isSandboxPost, type StoredPart } from './views.js';

export function getSandboxClock(ctx: ContentContext) {
  return { now: ctx.clock.now().toISOString(), offset_ms: ctx.clock.offsetMs, mode: ctx.config.mode };
}

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

/**
 * Takes every snapshot that has come due on sandbox posts, timestamped at its exact age so
 * the growth curve is the same however the clock got there. Replies arrive with the 24 h one.
 */
export async function growMetrics(
  ctx: ContentContext,
  now: Date,
): Promise<{ snapshots: number; settled: string[] }> {
  const store = postsStore(ctx.db);
  const growing = (await store.growing(now.toISOString())).filter(isSandboxPost);
  if (growing.length === 0) return { snapshots: 0, settled: [] };
  const have = new Set(
    (await store.snapshotsOf(growing.map((p) => p.id))).map((s) => `${s.post_id}:${s.age_h}`),
  );
  let snapshots = 0;
  const toSettle: PostRow[] = [];
  await ctx.db.transaction(async (tx) => {
    const txStore = postsStore(tx);
    for (const post of growing) {
      const published = Date.parse(post.published_at ?? '');
      const parts = fromJson<StoredPart[]>(post.parts);
      const text = parts.map((p) => p.text).join('\n\n');
      const quality = simulatedQuality(
        post.id,
        text,
        (parts[0]?.media.length ?? 0) > 0,
        post.platform as Platform,
        new Date(published),
      );
      for (const age of SNAPSHOT_AGES_H) {
        const takenAt = published + age * HOUR;
        if (takenAt > now.getTime() || have.has(`${post.id}:${age}`)) continue;
        const counts = simulatedCounts(post.id, post.platform as Platform, quality, age);
        await txStore.addSnapshot({
          post_id: post.id,
          age_h: age,
          taken_at: new Date(takenAt).toISOString(),
          ...counts,
        });
        snapshots++;
        if (age === 24)
          for (const [i, r] of simulatedReplies(post.id, counts.comments).entries())
            await txStore.addReply({
              id: ctx.ids.make('rpl'),
              post_id: post.id,
              brand_id: post.brand_id,
              author: r.author,
              text: r.text,
              theme: r.theme,
              created_at: new Date(published + (2 + i * 3) * HOUR).toISOString(),
            });
        if (age === SETTLE_AGE_H) toSettle.push(post);
      }
    }
  });
  const settled = await settle(ctx, toSettle, (p) =>
    new Date(Date.parse(p.published_at ?? '') + SETTLE_AGE_H * HOUR).toISOString(),
  );
  return { snapshots, settled };
}

/** One pass of the sandbox world: publish what is due, grow metrics, fire due automations. */
export async function tick(ctx: ContentContext): Promise<Omit<AdvanceResultView, 'now' | 'offset_ms'>> {
  const now = ctx.clock.now();
  const due = await postsStore(ctx.db).due(now.toISOString());
  const { published, failed } = due.length ? await publishPosts(ctx, due) : { published: [], failed: [] };
  const grown = ctx.config.mode === 'sandbox' ? await growMetrics(ctx, now) : { snapshots: 0, settled: [] };
  const automations = await fireDueAutomations(ctx);
  return { published, failed, snapshots: grown.snapshots, settled: grown.settled, automations };
}

/** Moves the sandbox clock forward and lets the world catch up. Sandbox mode only. */
export async function advanceSandboxClock(
  ctx: ContentContext,
  input: {
    minutes?: number | undefined;
    hours?: number | undefined;
    days?: number | undefined;
    to?: string | undefined;
  },
): Promise<AdvanceResultView> {
  if (ctx.config.mode !== 'sandbox')
    throw conflict(
      'SANDBOX_ONLY',
      'The sandbox clock can only be moved in sandbox mode; live mode runs on real time.',
    );
  const now = ctx.clock.now().getTime();
  let ms = ((input.minutes ?? 0) + (input.hours ?? 0) * 60 + (input.days ?? 0) * 1440) * 60_000;
  if (input.to) {
    if (ms > 0) throw conflict('INVALID_ADVANCE', "Give either 'to' or minutes/hours/days, not both.");
    ms = Date.parse(input.to) - now;
    if (ms <= 0)
      throw conflict(
        'INVALID_ADVANCE',
        `'to' (${input.to}) is not in the sandbox future; the clock only moves forward.`,
      );
  }
  if (ms <= 0) throw conflict('INVALID_ADVANCE', 'Move the clock forward by at least one minute.');
  if (ms > SANDBOX.maxAdvanceMs) throw conflict('INVALID_ADVANCE', 'One advance moves at most 31 days.');
  // Step through in 6 h hops so posts scheduled along the way publish at their slot, before
  // their own snapshots are taken, and daily automation caps see each day in turn.
  const target = now + ms;
  const totals: Omit<AdvanceResultView, 'now' | 'offset_ms'> = {
    published: [],
    failed: [],
    snapshots: 0,
    settled: [],
    automations: [],
  };
  let at = now;
  while (at < target) {
    const step = Math.min(6 * HOUR, target - at);
    await ctx.clock.advance(ctx.db, step);
    at += step;
    const r = await tick(ctx);
    totals.published.push(...r.published);
    totals.failed.push(...r.failed);
    totals.snapshots += r.snapshots;
    totals.settled.push(...r.settled);
    totals.automations.push(...r.automations);
  }
  // The clock view also carries `mode`, which the advance result does not declare (always sandbox here).
  const clock = getSandboxClock(ctx);
  return { now: clock.now, offset_ms: clock.offset_ms, ...totals };
}
