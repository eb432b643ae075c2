import {
  IDEMPOTENCY_OWNER_POSTGRES,
  IDEMPOTENCY_OWNER_SQLITE,
} from '../../../platform/db/idempotency-schema.js';
import type { Migration } from '../../../platform/db/sql.js';

/**
 * Each Idempotency-Key remembers the instance that claimed it, so a retry after that process
 * died takes the key over at once, while a key claimed by a live instance (another process on the
 * same database) stays `409 IDEMPOTENCY_KEY_IN_USE` until it answers or its lock runs out.
 */
export const idempotencyOwnerMigration: Migration = {
  id: 15,
  name: 'idempotency keys remember their claimant',
  up: IDEMPOTENCY_OWNER_SQLITE,
  postgres: IDEMPOTENCY_OWNER_POSTGRES,
};
