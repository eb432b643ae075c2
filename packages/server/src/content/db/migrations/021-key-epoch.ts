import { keyEpochSql } from '../../../platform/db/key-epoch-schema.js';
import type { Migration } from '../../../platform/db/sql.js';

/**
 * The key epoch (platform/db/key-epoch-schema.ts) on the content API's keys: a revoke
 * (`revoked_at`), a change of scopes or hash, a deleted row move it. The SQL it ran is what
 * `keyEpochSql` builds for these columns (the same text as when it was written here).
 */
export const keyEpochMigration: Migration = {
  id: 21,
  name: 'key epoch for cached key lookups',
  ...keyEpochSql(['revoked_at', 'scopes', 'key_hash']),
};
