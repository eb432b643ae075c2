import type { Migration } from '../../../platform/db/sql.js';

/**
 * Per-key rate limits: one fixed-window counter per API key. It lives here, not in a process
 * map, so every instance on the same database counts against the same limit, and a restart does
 * not hand a key a fresh allowance. One row per key, rewritten in place (see
 * stores/rate-limits-store.ts), so the table never grows past the number of keys.
 */
export const keyRateLimitsMigration: Migration = {
  id: 9,
  name: 'key rate limits',
  up: `
    CREATE TABLE key_rate_windows (
      key_id TEXT PRIMARY KEY,
      window_start TEXT NOT NULL,
      count INTEGER NOT NULL CHECK (count >= 1)
    );
  `,
  postgres: `
    CREATE TABLE key_rate_windows (
      key_id TEXT COLLATE "C" PRIMARY KEY,
      window_start TEXT COLLATE "C" NOT NULL,
      count BIGINT NOT NULL CHECK (count >= 1)
    );
  `,
};
