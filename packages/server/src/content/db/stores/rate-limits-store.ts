import type { SqlExecutor } from '../../../platform/db/sql.js';

export interface RateWindowRow {
  key_id: string;
  window_start: string;
  count: number;
}

export function rateLimitsStore(db: SqlExecutor) {
  return {
    /**
     * Reserves `calls` calls in `windowStart`'s window and returns the window's count after it,
     * in one statement: a new window starts at `calls`, the current one goes up by `calls`. Two
     * instances reserving at once cannot both read the old count (no read-then-write), so the
     * reservations they are granted never add up past the limit.
     *
     * The row only moves forward: a reservation for a window older than the row's (an instance
     * whose clock is behind another's, or a call that read the time just before the minute
     * ended) is added to the row's newer window instead of replacing it. Replacing it let two
     * instances with skewed clocks reset each other's count on every reservation, so a key
     * alternating between them was never limited while their clocks straddled a minute
     * (test/security/rate-window-skew.test.ts). Windows are ISO strings of one format, so
     * they compare as text.
     *
     * Forward, but not past `latestHonoured` (the window after the caller's): a row further
     * ahead was written by a clock that was wrong, not one a second or two apart, and is replaced
     * like an old one. Kept, it held every later call in that future minute's count, so a key
     * used once while a clock ran a day fast was refused for that day after the clock was set
     * right (test/security/rate-window-clock-set-back.test.ts).
     */
    reserve: async (
      keyId: string,
      windowStart: string,
      calls: number,
      latestHonoured: string,
    ): Promise<RateWindowRow> => {
      const row = await db.get<RateWindowRow>(
        `INSERT INTO key_rate_windows (key_id, window_start, count) VALUES (?, ?, ?)
         ON CONFLICT (key_id) DO UPDATE SET
           count = CASE WHEN key_rate_windows.window_start < excluded.window_start
                          OR key_rate_windows.window_start > ?
                        THEN excluded.count ELSE key_rate_windows.count + excluded.count END,
           window_start = CASE WHEN key_rate_windows.window_start < excluded.window_start
                                 OR key_rate_windows.window_start > ?
                               THEN excluded.window_start ELSE key_rate_windows.window_start END
         RETURNING key_id, window_start, count`,
        [keyId, windowStart, calls, latestHonoured, latestHonoured],
      );
      if (!row) throw new Error('rate window upsert returned no row');
      return row;
    },
  };
}
