import {
  IDEMPOTENCY_TABLE_POSTGRES,
  IDEMPOTENCY_TABLE_SQL,
} from '../../../platform/db/idempotency-schema.js';

import type { Migration } from '../../../platform/db/sql.js';

/** Idempotency keys on POSTs, so a client retrying after a dropped connection creates nothing twice. */
export const idempotencyMigration: Migration = {
  id: 4,
  name: 'idempotency keys',
  up: IDEMPOTENCY_TABLE_SQL,
  postgres: IDEMPOTENCY_TABLE_POSTGRES,
};
