import type { SqlExecutor } from '../../../platform/db/sql.js';

export interface RateWindowRow {
  key_id: string;
  window_start: string;
  count: number;
}

export function rateLimitsStore(db: SqlExecutor) {
  return {
    /**
     * Counts one call in `windowStart`'s window and returns the count so far, in one statement:
     * a new window starts at 1, the current one goes up by 1. Two instances counting at once
     * cannot both read the old count (no read-then-write), so none under-counts.
     */
    hit: async (keyId: string, windowStart: string): Promise<RateWindowRow> => {
      const row = await db.get<RateWindowRow>(
        `INSERT INTO key_rate_windows (key_id, window_start, count) VALUES (?, ?, 1)
         ON CONFLICT (key_id) DO UPDATE SET
           count = CASE WHEN key_rate_windows.window_start = excluded.window_start
                        THEN key_rate_windows.count + 1 ELSE 1 END,
           window_start = excluded.window_start
         RETURNING key_id, window_start, count`,
        [keyId, windowStart],
      );
      if (!row) throw new Error('rate window upsert returned no row');
      return row;
    },
  };
}
