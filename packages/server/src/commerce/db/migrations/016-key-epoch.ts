import { KEY_EPOCH_TRUNCATE_POSTGRES, keyEpochSql } from '../../../platform/db/key-epoch-schema.js';
import type { Migration } from '../../../platform/db/sql.js';

/**
 * The key epoch (platform/db/key-epoch-schema.ts) on the commerce API's keys, so an instance can
 * cache them (platform/key-cache.ts) and still refuse a revoked key on its next request. It moves
 * on an UPDATE of anything an authenticated request is judged by: the revoke (`revoked_at`), the
 * hash, the environment (a cached key must never answer in the other one), the account, the id
 * (the idempotency scope) and the name (shown on the hosted approval page); on a DELETE; and on
 * PostgreSQL on a TRUNCATE (content needed a second migration for it; here it comes at once).
 */
const sql = keyEpochSql(['revoked_at', 'key_hash', 'env', 'account_id', 'id', 'name']);

export const keyEpoch: Migration = {
  id: 16,
  name: 'key epoch for cached key lookups',
  up: sql.up,
  postgres: sql.postgres + KEY_EPOCH_TRUNCATE_POSTGRES,
};
