import { MAX_PARTS, PLATFORM_LIMITS, type Platform } from './domain.js';

/**
 * Characters as people count them (code points), so an emoji is one, not two: the UTF-16 length
 * less one per surrogate pair (a lone surrogate counts one, as `[...text].length` counts it).
 * Counted in place: spreading the text made an array of one string per character for every part
 * of every listed post, a visible share of a list's garbage.
 */
export function charCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) continue;
    const next = text.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) {
      n--;
      i++;
    }
  }
  return n;
}

/** How a platform is named in text people read ("Schedule X posts", never "Schedule x posts"). */
export const PLATFORM_NAMES: Record<Platform, string> = {
  x: 'X',
  linkedin: 'LinkedIn',
  instagram: 'Instagram',
  threads: 'Threads',
};

export const hashtagsOf = (text: string) => text.match(/#[\p{L}\p{N}_]+/gu) ?? [];

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whole-word, case-insensitive matches of banned words (a banned "hack" does not flag "hackathon"). */
export function bannedWordsIn(text: string, banned: readonly string[]): string[] {
  const found: string[] = [];
  for (const word of banned) {
    const w = word.trim();
    if (!w) continue;
    const re = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRe(w)}(?=$|[^\\p{L}\\p{N}])`, 'iu');
    if (re.test(text)) found.push(w);
  }
  return found;
}

export function removeBannedWords(text: string, banned: readonly string[]): string {
  let out = text;
  for (const word of banned) {
    const w = word.trim();
    if (!w) continue;
    out = out.replace(new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRe(w)}(?=$|[^\\p{L}\\p{N}])`, 'giu'), '$1');
  }
  return (
    out
      .replace(/[ \t]{2,}/g, ' ')
      // One space, not ` +`: the line above left no longer run, and ` +` would be retried from every
      // space of a long run (quadratic).
      .replace(/ ([,.!?])/g, '$1')
      .trim()
  );
}

/** Cuts at a word boundary and marks the cut, so a fitted text never ends mid-word. */
export function truncate(text: string, max: number): string {
  if (charCount(text) <= max) return text;
  const chars = [...text].slice(0, Math.max(0, max - 1)).join('');
  const cut = chars.lastIndexOf(' ');
  return `${(cut > max * 0.6 ? chars.slice(0, cut) : chars).trimEnd()}…`;
}

/**
 * Splits text into parts that each fit the platform limit. Platforms without threads get one
 * part, truncated. Splits prefer paragraph, then sentence, then word boundaries.
 */
export function fitToPlatform(text: string, platform: Platform): string[] {
  const limit = PLATFORM_LIMITS[platform];
  const clean = text.trim();
  if (charCount(clean) <= limit) return [clean];
  if (MAX_PARTS[platform] === 1) return [truncate(clean, limit)];
  const pieces = clean.split(/\n\n+|(?<=[.!?])\s+/).filter(Boolean);
  const parts: string[] = [];
  let current = '';
  for (const piece of pieces) {
    const candidate = current ? `${current}\n\n${piece}` : piece;
    if (charCount(candidate) <= limit) current = candidate;
    else {
      if (current) parts.push(current);
      current = charCount(piece) <= limit ? piece : truncate(piece, limit);
    }
  }
  if (current) parts.push(current);
  return parts.slice(0, MAX_PARTS[platform]);
}

/** FNV-1a: a stable 32-bit hash so the simulated model and sandbox metrics are deterministic. */
export function hash32(input: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < input.length; i++) {
    h ^= input.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A seeded PRNG (mulberry32) for reproducible demo data and simulated metrics. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(items: readonly T[], n: number): T => items[Math.abs(n) % items.length] as T;

/**
 * Ends a sentence with one full stop. Text that already ends in `.`, `!`, `?` or `…` (a quoted
 * title, a service message, a zod message ending in a period) gets none, so a message built from
 * other text never shows `..` or `?.`.
 */
export function sentence(text: string): string {
  const t = text.trimEnd();
  return /[.!?…]["'”’]*$/.test(t) ? t : `${t}.`;
}

/** "1 idea", "3 ideas". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
