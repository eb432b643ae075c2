import { DAY, HOUR } from '../../platform/clock.js';
import type { ContentContext } from '../context.js';
import type { ContentStores } from '../db/stores/index.js';
import { PLATFORMS, type Platform } from '../domain.js';
import type { BestTimesView } from '../schemas/insights.js';
import { requireBrand } from './brands.js';

export interface Slot {
  weekday: number;
  hour: number;
  score: number;
}

/**
 * Used until a platform has MIN_HISTORY published posts: widely published starting points
 * (weekday mornings for X and LinkedIn, late morning and evening for Instagram).
 */
export const DEFAULT_SLOTS: Record<Platform, Slot[]> = {
  x: [
    { weekday: 2, hour: 9, score: 1 },
    { weekday: 3, hour: 12, score: 0.9 },
    { weekday: 4, hour: 9, score: 0.85 },
    { weekday: 1, hour: 12, score: 0.8 },
    { weekday: 5, hour: 10, score: 0.7 },
  ],
  linkedin: [
    { weekday: 2, hour: 8, score: 1 },
    { weekday: 3, hour: 9, score: 0.95 },
    { weekday: 4, hour: 10, score: 0.9 },
    { weekday: 1, hour: 8, score: 0.8 },
    { weekday: 3, hour: 12, score: 0.75 },
  ],
  instagram: [
    { weekday: 1, hour: 11, score: 1 },
    { weekday: 3, hour: 19, score: 0.9 },
    { weekday: 5, hour: 11, score: 0.85 },
    { weekday: 0, hour: 10, score: 0.8 },
    { weekday: 2, hour: 18, score: 0.75 },
  ],
  threads: [
    { weekday: 2, hour: 10, score: 1 },
    { weekday: 4, hour: 12, score: 0.9 },
    { weekday: 1, hour: 19, score: 0.8 },
    { weekday: 3, hour: 8, score: 0.75 },
    { weekday: 6, hour: 11, score: 0.7 },
  ],
};
export const MIN_HISTORY = 8;
export const SLOTS_SHOWN = 5;
/** How far ahead nextFreeSlot looks before giving up. */
export const SLOT_HORIZON_DAYS = 28;

export const serverTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * Scores weekday × hour (server local time) by the mean engagements of posts published then,
 * at the oldest snapshot age every post has reached (so young posts are compared fairly).
 *
 * Reads one row a post (its latest snapshot, summed in SQL) and, per platform with enough
 * history, the posts' engagements at that common age: never every snapshot of the brand, which
 * for a brand with years of posts was unbounded memory and time on every request. The buckets
 * stay in JS because they are in the server's local time zone, which SQLite cannot convert to.
 */
/**
 * The best weekday × hour buckets (server local time) by mean value, best first, each scored
 * against the best one; ties go to the earlier weekday, then hour.
 */
export function rankSlots(scored: { published_at: string; value: number }[]): Slot[] {
  const buckets = new Map<string, { weekday: number; hour: number; sum: number; n: number }>();
  for (const p of scored) {
    const d = new Date(p.published_at);
    const key = `${d.getDay()}:${d.getHours()}`;
    const b = buckets.get(key) ?? { weekday: d.getDay(), hour: d.getHours(), sum: 0, n: 0 };
    b.sum += p.value;
    b.n += 1;
    buckets.set(key, b);
  }
  const ranked = [...buckets.values()]
    .map((b) => ({ weekday: b.weekday, hour: b.hour, mean: b.sum / b.n }))
    .sort((a, b) => b.mean - a.mean || a.weekday - b.weekday || a.hour - b.hour)
    .slice(0, SLOTS_SHOWN);
  const top = ranked[0]?.mean || 1;
  return ranked.map((r) => ({
    weekday: r.weekday,
    hour: r.hour,
    score: Math.round((r.mean / top) * 100) / 100,
  }));
}

async function slotsFor(ctx: ContentContext, brandId: string, db: ContentStores = ctx.stores) {
  const latest = await db.posts.latestEngagements(brandId);
  const out = new Map<Platform, { source: 'history' | 'default'; sample: number; slots: Slot[] }>();
  for (const platform of PLATFORMS) {
    const posts = latest.filter((p) => p.platform === platform);
    if (posts.length < MIN_HISTORY) {
      out.set(platform, { source: 'default', sample: posts.length, slots: DEFAULT_SLOTS[platform] });
      continue;
    }
    const ages = posts.map((p) => p.age_h).sort((a, b) => a - b);
    const common = ages[Math.floor(ages.length / 4)] ?? 24;
    // A post older than `common` is scored at `common` if it has a snapshot there, else at its latest.
    const atCommon = await db.posts.engagementsAtAge(brandId, platform, common);
    const scored = posts.map((p) => ({
      published_at: p.published_at,
      value: atCommon.get(p.post_id) ?? p.engagements,
    }));
    out.set(platform, { source: 'history', sample: posts.length, slots: rankSlots(scored) });
  }
  return out;
}

const hourStart = (ms: number) => {
  const d = new Date(ms);
  d.setMinutes(0, 0, 0);
  return d.getTime();
};

/** Hours already used on a channel: scheduled posts and pending approvals. */
async function takenHours(
  db: ContentStores,
  channelId: string,
  from: string,
  to: string,
  exceptApproval?: string,
) {
  const posts = await db.posts.scheduledOnChannel(channelId, from, to);
  const approvals = await db.approvals.pendingOnChannel(channelId, from, to);
  return new Set([
    ...posts.map((p) => hourStart(Date.parse(p.scheduled_for))),
    ...approvals.filter((a) => a.id !== exceptApproval).map((a) => hourStart(Date.parse(a.slot))),
  ]);
}

export async function isSlotTaken(
  db: ContentStores,
  channelId: string,
  at: Date,
  opts: { exceptApproval?: string; postsOnly?: boolean } = {},
): Promise<boolean> {
  const start = hourStart(at.getTime());
  const from = new Date(start).toISOString();
  const to = new Date(start + HOUR).toISOString();
  if (opts.postsOnly) return (await db.posts.scheduledOnChannel(channelId, from, to)).length > 0;
  return (await takenHours(db, channelId, from, to, opts.exceptApproval)).size > 0;
}

export async function bestTimes(
  ctx: ContentContext,
  brandId: string,
  platform?: Platform,
): Promise<BestTimesView> {
  await requireBrand(ctx, brandId);
  const all = await slotsFor(ctx, brandId);
  const channels = await ctx.stores.channels.connectedOf(brandId);
  const wanted: Platform[] = platform
    ? [platform]
    : channels.length
      ? [...new Set(channels.map((c) => c.platform))]
      : [...PLATFORMS];
  const platforms: BestTimesView['platforms'] = [];
  for (const p of wanted) {
    const s = all.get(p) ?? { source: 'default' as const, sample: 0, slots: DEFAULT_SLOTS[p] };
    const channel = channels.find((c) => c.platform === p);
    const free = channel ? await nextFreeSlotOn(ctx, channel.id, s.slots) : null;
    platforms.push({
      platform: p,
      source: s.source,
      sample_size: s.sample,
      slots: s.slots,
      next_free: free && channel ? { channel_id: channel.id, at: free.at } : null,
    });
  }
  return { brand_id: brandId, timezone: serverTimeZone(), platforms };
}

async function nextFreeSlotOn(
  ctx: ContentContext,
  channelId: string,
  slots: Slot[],
  notBefore?: Date,
  db: ContentStores = ctx.stores,
) {
  const now = ctx.clock.now().getTime();
  const start = hourStart(Math.max(now, notBefore?.getTime() ?? 0)) + HOUR;
  const end = start + SLOT_HORIZON_DAYS * DAY;
  const taken = await takenHours(db, channelId, new Date(start).toISOString(), new Date(end).toISOString());
  const wanted = new Map(slots.map((s) => [`${s.weekday}:${s.hour}`, s]));
  for (let t = start; t < end; t = hourStart(t + HOUR + 60_000)) {
    const d = new Date(t);
    const slot = wanted.get(`${d.getDay()}:${d.getHours()}`);
    if (slot && !taken.has(t))
      return { at: d.toISOString(), weekday: slot.weekday, hour: slot.hour, score: slot.score };
  }
  return null;
}

/**
 * The next free best-time slot on a channel: the earliest upcoming hour that is one of the
 * platform's best slots and has no scheduled post or pending approval. `propose_post` uses it,
 * and so does approving an approval whose slot has passed. Pass `db` when inside a transaction.
 */
export async function nextFreeSlot(
  ctx: ContentContext,
  input: { brandId: string; channelId: string; platform: Platform; notBefore?: Date; db?: ContentStores },
): Promise<{ channel_id: string; at: string; weekday: number; hour: number; score: number } | null> {
  const db = input.db ?? ctx.stores;
  const all = await slotsFor(ctx, input.brandId, db);
  const slots = all.get(input.platform)?.slots ?? DEFAULT_SLOTS[input.platform];
  const free = await nextFreeSlotOn(ctx, input.channelId, slots, input.notBefore, db);
  return free ? { channel_id: input.channelId, ...free } : null;
}
