import type { Migration } from '../../../platform/db/sql.js';

/**
 * Who holds webhook deliveries now (webhooks-store.ts `claimDue` looks for claims of a process on
 * this machine that is gone, to take them back at once). Partial: only claimed pending deliveries,
 * a few per instance's slot, so the look costs the same whatever backlog has piled up.
 */
const sql = `
  CREATE INDEX deliveries_pending_owner ON deliveries (lease_owner) WHERE status = 'pending' AND lease_owner IS NOT NULL;
`;

export const deliveryClaimOwners: Migration = {
  id: 14,
  name: 'index the holders of webhook delivery claims',
  up: sql,
  postgres: sql,
};
