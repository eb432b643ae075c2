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
