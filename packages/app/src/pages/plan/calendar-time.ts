import type { Platform } from '../../api.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { instantOf, wallClock } from '../../when.js';
import type { BestTimes, Post } from './common.js';

/**
 * Days are `YYYY-MM-DD` keys in the brand's time zone, so a post, a slot and "today" fall on the
 * same day whatever the browser's zone is. Arithmetic on keys happens on them as UTC dates, free
 * of daylight-saving jumps.
 */
export type DayKey = string;

export const keyOf = (d: Date): DayKey => d.toISOString().slice(0, 10);
export const dateOf = (k: DayKey) => new Date(`${k}T00:00:00Z`);
export const addDays = (k: DayKey, n: number) => keyOf(new Date(dateOf(k).getTime() + n * 86_400_000));
export const weekdayOf = (k: DayKey) => dateOf(k).getUTCDay();
/** Weeks start on Monday. */
export const weekStart = (k: DayKey) => addDays(k, -((weekdayOf(k) + 6) % 7));
export const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;
export const slotKey = (day: DayKey, hour: number) => `${day}T${hh(hour)}`;

export const dayName = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  timeZone: 'UTC',
});

/** A post where the calendar puts it: its day and hour in the brand's zone. */
export interface Placed {
  post: Post;
  day: DayKey;
  hour: number;
  minute: number;
  time: string;
}

export function place(posts: Post[], zone: string): Placed[] {
  const placed = posts.flatMap((post) => {
    const when = post.published_at ?? post.scheduled_for;
    if (!when) return [];
    const w = wallClock(when, zone);
    return [{ post, ...w, time: `${hh(w.hour).slice(0, 3)}${String(w.minute).padStart(2, '0')}` }];
  });
  return placed.sort((a, b) => a.day.localeCompare(b.day) || a.time.localeCompare(b.time));
}

export interface BestSlot {
  platforms: { platform: Platform; name: string; score: number }[];
  score: number;
}

/**
 * The best-time slots that fall in `days`, by `slotKey` in the brand's zone. The API gives them
 * as the spec defines them, weekday and hour in the server's zone (`best.timezone`); each is
 * turned into the instants it names around these days, then read on the brand's wall clock.
 */
export function bestIn(best: BestTimes, days: DayKey[], zone: string): Map<string, BestSlot> {
  const wanted = new Set(days);
  const out = new Map<string, BestSlot>();
  const first = days[0];
  if (!first) return out;
  // A day either side: the server's day can be the brand's day before or after.
  const serverDays = Array.from({ length: days.length + 2 }, (_, i) => addDays(first, i - 1));
  for (const p of best.platforms)
    for (const s of p.slots)
      for (const day of serverDays) {
        if (weekdayOf(day) !== s.weekday) continue;
        const w = wallClock(instantOf(day, s.hour, 0, best.timezone), zone);
        if (!wanted.has(w.day)) continue;
        const key = slotKey(w.day, w.hour);
        const slot = out.get(key) ?? { platforms: [], score: 0 };
        slot.platforms.push({ platform: p.platform, name: PLATFORM_NAMES[p.platform], score: s.score });
        slot.score = Math.max(slot.score, s.score);
        out.set(key, slot);
      }
  return out;
}

/** Shading in three steps of score. */
export const shade = (score: number) => `best-${score >= 0.75 ? 3 : score >= 0.4 ? 2 : 1}`;

/** The first words of a post, cut at a word. */
export function firstWords(text: string, max = 48): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > 20 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
