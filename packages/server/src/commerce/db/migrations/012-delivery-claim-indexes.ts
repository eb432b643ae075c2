import type { Migration } from '../../../platform/db/sql.js';

/**
 * Indexes for claiming webhook deliveries per endpoint (webhooks-store.ts `claimDue`), so a claim
 * costs the same whatever backlog a dead endpoint has piled up:
 * - `deliveries_pending_due`: an endpoint's oldest due deliveries, read in order, never all of them;
 * - `deliveries_pending_leased`: an endpoint's attempts in flight (unexpired claims), counted from
 *   the few claimed rows rather than from every pending one.
 * Both are partial: finished deliveries, the bulk of the table, are not in them.
 */
const sql = `
  CREATE INDEX deliveries_pending_due ON deliveries (endpoint_id, next_attempt_at, seq) WHERE status = 'pending';
  CREATE INDEX deliveries_pending_leased ON deliveries (endpoint_id, lease_until) WHERE status = 'pending';
`;

export const deliveryClaimIndexes: Migration = {
  id: 12,
  name: 'indexes for per-endpoint webhook claims',
  up: sql,
  postgres: sql,
};
