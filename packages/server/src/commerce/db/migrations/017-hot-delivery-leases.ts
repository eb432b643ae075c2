import type { Migration } from '../../../platform/db/sql.js';

/**
 * A delivery's lease is written on every attempt (webhooks-store.ts `claimDue`): `lease_until`
 * and `lease_owner`. `deliveries_pending_leased (endpoint_id, lease_until)` (migration 012) made
 * every one of those writes a new entry in each of the table's five indexes on PostgreSQL: an
 * UPDATE can be HOT (a new row version on the same page, no index touched) only when no index
 * names a column it changes. Dropped on PostgreSQL, so the lease is HOT; the in-flight count reads
 * `deliveries_pending_due` instead and stops at the endpoint's limit (the oldest due rows, which
 * are the ones claimed, come first in it), so a dead endpoint's backlog is not read at each claim.
 *
 * PostgreSQL also keeps half of each new page of `deliveries` free (`fillfactor`): a row is
 * leased a few milliseconds after its insert, when its page is usually full already, and a HOT
 * version must fit on the same page. Measured with the paced drain (12,000 deliveries, leases
 * HOT of about 11,700): 0 before, about 5,200 at 70, 9,500 at 50, all at 30. 50 costs a finished
 * delivery twice the pages; 30 would cost three times. Pages written before this migration
 * keep what they have.
 * SQLite has no HOT updates, and keeps the index: its in-flight count reads it (dropping it, with the
 * walk of `deliveries_pending_due` in place of that count, cost SQLite's dispatcher about 8 % more
 * CPU a delivery in the paced drain, two pairs under load).
 */
export const hotDeliveryLeases: Migration = {
  id: 17,
  name: 'webhook leases written as HOT updates',
  up: () => {
    // SQLite: nothing to change (see above).
  },
  postgres: `
    DROP INDEX IF EXISTS deliveries_pending_leased;
    ALTER TABLE deliveries SET (fillfactor = 50);
  `,
};
