import type { Migration } from '../../../platform/db/sql.js';

/**
 * `deliveries_due (status, next_attempt_at)` (migration 004) has been read by no query since the
 * claim went per endpoint (migration 012's partial indexes `deliveries_pending_due` and
 * `deliveries_pending_leased`; webhooks-store.ts `claimDue`). It was still written on every
 * delivery's insert and on every outcome (both columns change), so each delivery paid for an
 * index nothing used: on PostgreSQL an outcome or a lease is never a HOT update, so every one
 * of them added an entry to it too. Dropped on both engines; `IF EXISTS` so a database whose
 * operator dropped it by hand migrates as well.
 */
const sql = 'DROP INDEX IF EXISTS deliveries_due;';

export const dropDeliveriesDue: Migration = {
  id: 15,
  name: 'drop the unused deliveries_due index',
  up: sql,
  postgres: sql,
};
