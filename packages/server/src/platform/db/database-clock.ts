import type { Dialect } from './sql.js';

/**
 * SQL for the database's own time, `?` seconds ago, as an ISO-8601 string with milliseconds
 * (`2026-11-27T02:50:00.123Z`, the form the stores keep times in, so it compares as text).
 *
 * Stores take their time from the injected clock; this is the one exception, for stamps that
 * instances judge each other by (key-epoch heartbeats): with each process's wall clock, an
 * instance running behind looked silent to the others. It lives here, beside the other SQL that
 * differs per dialect, because the two engines spell it differently.
 */
export function databaseTimeAgo(dialect: Dialect): string {
  return dialect === 'postgres'
    ? `to_char((clock_timestamp() - make_interval(secs => ?)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ? || ' seconds')`;
}
