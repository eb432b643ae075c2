import type { Migration } from '../../../platform/db/sql.js';

/**
 * Checkouts are read, moved through the state machine and written back whole. `version` makes
 * that write conditional: it lands only if the row is still the version that was read, so a
 * write decided on a stale read (another request, another instance) is refused instead of
 * putting an older state back. Existing rows start at 0; nothing else changes.
 */
export const checkoutVersions: Migration = {
  id: 7,
  name: 'checkout versions: whole-row writes only on the version that was read',
  up: `
    ALTER TABLE checkouts ADD COLUMN version INTEGER NOT NULL DEFAULT 0;
  `,
  postgres: `
    ALTER TABLE checkouts ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
  `,
};
