import type { BrandMemory } from '../schemas/brands.js';
import { unprocessable } from './errors.js';

/**
 * How much Brand Memory may hold: the one place that decides it, for REST and MCP alike (the
 * request schemas take their bounds from here, and every write is checked here). The whole of
 * it is read and rewritten on each change and sent to the model with every draft, so it stays
 * small enough for both: at most MEMORY_MAX_BYTES as stored JSON, whatever the lists hold.
 */
export const MEMORY_LIMITS = {
  knowledge: 200,
  rules: 50,
  example_posts: 50,
  audiences: 30,
  products: 50,
  banned_words: 200,
} as const;

/** 1 MiB of stored JSON: 100 notes of 10,000 characters fit, 15 MB of them never again. */
export const MEMORY_MAX_BYTES = 1024 * 1024;

const LISTS: { label: string; count: (m: BrandMemory) => number; max: number }[] = [
  { label: 'knowledge notes', count: (m) => m.knowledge.length, max: MEMORY_LIMITS.knowledge },
  { label: "'do' rules", count: (m) => m.voice.do.length, max: MEMORY_LIMITS.rules },
  { label: "'avoid' rules", count: (m) => m.voice.avoid.length, max: MEMORY_LIMITS.rules },
  { label: 'style rules', count: (m) => m.style_rules.length, max: MEMORY_LIMITS.rules },
  { label: 'example posts', count: (m) => m.example_posts.length, max: MEMORY_LIMITS.example_posts },
  { label: 'audiences', count: (m) => m.audiences.length, max: MEMORY_LIMITS.audiences },
  { label: 'products', count: (m) => m.products.length, max: MEMORY_LIMITS.products },
  { label: 'banned words', count: (m) => m.voice.banned_words.length, max: MEMORY_LIMITS.banned_words },
];

const HOW_TO_MAKE_ROOM =
  'Remove entries first (DELETE /v1/brands/{id}/memory/items/{itemId}, or in the app on the brand page).';

/**
 * Checks the memory a write would store and returns it serialised, so the caller stores the very
 * JSON that was measured. Throws 422 MEMORY_FULL naming what is over; nothing is written then.
 */
export function checkedMemoryJson(memory: BrandMemory): string {
  for (const list of LISTS) {
    const n = list.count(memory);
    if (n > list.max)
      throw unprocessable(
        'MEMORY_FULL',
        `Brand Memory may hold at most ${list.max} ${list.label}; this change would make ${n}. ${HOW_TO_MAKE_ROOM}`,
      );
  }
  const json = JSON.stringify(memory);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MEMORY_MAX_BYTES)
    throw unprocessable(
      'MEMORY_FULL',
      `Brand Memory may hold at most ${MEMORY_MAX_BYTES} bytes (1 MiB) of JSON; this change would make ${bytes}. ${HOW_TO_MAKE_ROOM}`,
    );
  return json;
}
