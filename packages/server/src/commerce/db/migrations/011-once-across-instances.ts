import { LEASES_TABLE_POSTGRES, LEASES_TABLE_SQLITE } from '../../../platform/db/leases-store.js';
import type { Migration } from '../../../platform/db/sql.js';

/**
 * What lets several instances share one database and still do each piece of work once:
 *
 * - `leases`: named leases with an expiry (platform/db/leases-store.ts). A checkout's placement
 *   holds `confirm:<id>` while the store is asked, so crash recovery on another instance leaves
 *   it alone until the lease runs out (the instance died) and then finishes it.
 * - `deliveries.lease_owner`: who claimed a webhook delivery. The attempt is recorded only by the
 *   instance still holding the claim, so a sender whose lease ran out cannot overwrite the
 *   outcome of the attempt that took over.
 */
export const onceAcrossInstances: Migration = {
  id: 11,
  name: 'leases; webhook deliveries remember who claimed them',
  up: `
    ${LEASES_TABLE_SQLITE}
    ALTER TABLE deliveries ADD COLUMN lease_owner TEXT;
  `,
  postgres: `
    ${LEASES_TABLE_POSTGRES}
    ALTER TABLE deliveries ADD COLUMN lease_owner TEXT COLLATE "C";
  `,
};
