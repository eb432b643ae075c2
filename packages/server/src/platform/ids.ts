import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Uniform base62 from a CSPRNG. Rejection sampling avoids the modulo bias a plain
 * `byte % 62` would give, which matters because API keys are built from this.
 */
/**
 * Random bytes are drawn from the CSPRNG a pool at a time (one call per few hundred ids instead
 * of one per id: every request makes a request id). Each byte is used once.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++] as number;
}

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // 248 = 4 × 62: bytes above it are skipped so every character is equally likely.
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Makes ids like `chk_4fW9...`; injected so tests can make ids predictable. */
export interface Ids {
  make(prefix: string): string;
}

export const randomIds: Ids = { make: (prefix) => `${prefix}_${randomBase62(24)}` };

/** `n` in exactly `width` base62 digits; base62's digits are in ASCII order, so text order is number order. */
export function base62Fixed(n: number, width: number): string {
  let out = '';
  for (let rest = n; out.length < width; rest = Math.floor(rest / 62)) out = BASE62[rest % 62] + out;
  return out;
}

/**
 * The last millisecond's 8 digits: ids made in bulk (the MCP call log, thousands a second) share
 * their millisecond with the one before most of the time, and the digits cost a loop of eight
 * string concatenations each. A pure function of `ms`, so the memo cannot answer wrong.
 */
let lastMs = Number.NaN;
let lastMsDigits = '';
function msDigits(ms: number): string {
  if (ms !== lastMs) {
    lastMsDigits = base62Fixed(ms, 8);
    lastMs = ms;
  }
  return lastMsDigits;
}

/**
 * An id whose text sorts by `at` first: `prefix_`, the millisecond in 8 base62 characters (fixed
 * width, good until the year 8800), then the last 16 characters of an id from `ids` (random in
 * production, so ids made in the same millisecond on two instances still differ). For a table
 * written in bulk and keyed by id, such as the MCP call log: a random key sends each new row to
 * a random page of the primary key's index, so a batch of 200 rows rewrote up to 200 pages
 * (SQLite wrote each one to the WAL in full, about 3× the CPU per row of in-order keys).
 */
export function timeOrderedId(ids: Ids, prefix: string, at: Date): string {
  return `${prefix}_${msDigits(at.getTime())}${ids
    .make(prefix)
    .slice(prefix.length + 1)
    .slice(-16)}`;
}

/** Predictable ids for tests: `chk_000001`, `chk_000002`, ... per prefix. */
export function sequentialIds(): Ids {
  const counters = new Map<string, number>();
  return {
    make(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_${String(n).padStart(6, '0')}`;
    },
  };
}
