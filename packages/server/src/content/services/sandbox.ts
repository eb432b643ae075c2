import { HOUR } from '../../platform/clock.js';
import type { ContentContext } from '../context.js';
import type { PostRow } from '../db/stores/posts-store.js';
import { SANDBOX, SETTLE_AGE_H } from '../domain.js';
import { deliverEvents } from '../events.js';
import type { AdvanceResultView } from '../schemas/workspace.js';
import { fireDueAutomations } from './automations.js';
import { conflict } from './errors.js';
import { publishPosts, settle } from './posts.js';
import { dueAges, takeLiveSnapshots, takeSimulatedSnapshots } from './snapshots.js';
import { isSandboxPost } from './views.js';

export function getSandboxClock(ctx: ContentContext) {
  return { now: ctx.clock.now().toISOString(), offset_ms: ctx.clock.offsetMs, mode: ctx.config.mode };
}

/**
 * Takes every snapshot that has come due on published posts, and settles those that reached
 * 72 h: sandbox posts get their simulated curve; live posts are read from the platform.
 */
export async function growMetrics(
  ctx: ContentContext,
  now: Date,
): Promise<{ snapshots: number; settled: string[] }> {
  const store = ctx.stores.posts;
  const all = await store.growing(now.toISOString());
  const growing = all.filter(isSandboxPost);
  const live = await takeLiveSnapshots(
    ctx,
    all.filter((p) => !isSandboxPost(p)),
    now,
  );
  let snapshots = live.snapshots;
  const toSettle: PostRow[] = [...live.settled];
  if (growing.length) {
    const have = new Set(
      (await store.snapshotsOf(growing.map((p) => p.id))).map((s) => `${s.post_id}:${s.age_h}`),
    );
    await ctx.transaction(async (tx) => {
      for (const post of growing) {
        const written = await takeSimulatedSnapshots(ctx, tx, post, dueAges(post, now), have);
        snapshots += written.length;
        if (written.includes(SETTLE_AGE_H)) toSettle.push(post);
      }
    });
  }
  const settled = await settle(ctx, toSettle, (p) =>
    new Date(Date.parse(p.published_at ?? '') + SETTLE_AGE_H * HOUR).toISOString(),
  );
  return { snapshots, settled };
}

/**
 * One pass of the background loop (and of each sandbox clock hop): publish what is due, grow
 * metrics, fire due automations. Once `stopped` says so (the background loop's pass when a stop
 * has begun), it claims no further post and skips what follows; all of it stays due.
 */
export async function tick(
  ctx: ContentContext,
  opts: { stopped?: () => boolean } = {},
): Promise<Omit<AdvanceResultView, 'now' | 'offset_ms'>> {
  const stopped = opts.stopped ?? (() => false);
  // Events a dead instance claimed and never handled come back here once their lease ran out.
  await deliverEvents(ctx);
  const now = ctx.clock.now();
  const due = await ctx.stores.posts.due(now.toISOString());
  const { published, failed } = due.length
    ? await publishPosts(ctx, due, { stopped })
    : { published: [], failed: [] };
  if (stopped()) return { published, failed, snapshots: 0, settled: [], automations: [] };
  const grown = await growMetrics(ctx, now);
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
