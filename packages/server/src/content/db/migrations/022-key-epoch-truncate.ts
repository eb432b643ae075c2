import { KEY_EPOCH_TRUNCATE_POSTGRES } from '../../../platform/db/key-epoch-schema.js';
import type { Migration } from '../../../platform/db/sql.js';

/**
 * The key epoch (migration 21) also moves on `TRUNCATE api_keys` (found by the ninth pass,
 * test/security/key-epoch-truncate.postgres.test.ts; why in platform/db/key-epoch-schema.ts).
 * SQLite's DELETE without WHERE already fires the row trigger: nothing to do there.
 */
export const keyEpochTruncateMigration: Migration = {
  id: 22,
  name: 'key epoch moves on TRUNCATE',
  up: () => {},
  postgres: KEY_EPOCH_TRUNCATE_POSTGRES,
};
