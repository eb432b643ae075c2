import type { Dialect } from './sql.js';

/**
 * SQL for the database's own time now, as an ISO-8601 string with milliseconds
 * (`2026-11-27T02:50:00.123Z`, the form the stores keep times in).
 *
 * Stores take their time from the injected clock. The exceptions: named leases, written and
 * judged on one clock for all instances (lease-clock.ts), and the key epoch's
 * heartbeat rows show an operator when each instance last wrote, by one clock for all of them.
 * Nothing judges by it: SQLite's 'now' is the writing process's wall clock and PostgreSQL's
 * `clock_timestamp()` can step, so liveness is judged by heartbeat counts instead
 * (key-epoch-store.ts). It lives here, beside the other SQL that differs per dialect, because the
 * two engines spell it differently.
 */
export function databaseNow(dialect: Dialect): string {
  return dialect === 'postgres'
    ? `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;
}
