import { IDEMPOTENCY_TABLE_SQL } from '../../../platform/db/idempotency-store.js';
import { IDEMPOTENCY_TABLE_POSTGRES } from '../../../platform/db/idempotency-table-postgres.js';
import type { Migration } from '../../../platform/db/sqlite.js';

/** Idempotency keys on POSTs, so a client retrying after a dropped connection creates nothing twice. */
export const idempotencyMigration: Migration = {
  id: 4,
  name: 'idempotency keys',
  up: IDEMPOTENCY_TABLE_SQL,
  postgres: IDEMPOTENCY_TABLE_POSTGRES,
};
