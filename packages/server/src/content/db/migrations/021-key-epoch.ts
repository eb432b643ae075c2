import type { Migration } from '../../../platform/db/sql.js';

/**
 * The key epoch: one counter that moves whenever a content API key may have become unusable, so
 * an instance that caches key lookups (services/key-auth.ts, platform/epoch-lease-cache.ts) can
 * tell with one cheap read that its cache may be stale.
 *
 * - `key_epoch`: the counter, at most one row; no row reads as 0. It is not seeded, so a new
 *   database stays empty until used (migrate-to-postgres fills only empty targets). The triggers
 *   bump it in the same transaction as the change:
 *   a revoke (`revoked_at`), a change of scopes or hash, a deleted row. A trigger rather than the
 *   service: every path (the REST route, `svc-server keys revoke`, an operator's SQL) moves it, and
 *   a path added later cannot forget to. `last_used_at` (the throttled stamp) does not move it.
 * - `key_epoch_instances`: each running instance, the epoch it has seen (and cleared its cache
 *   for) and when it last said so. A revoke waits until every live instance has seen its epoch
 *   (or until the cache lease has run out), so the key fails on the next request everywhere.
 */
/**
 * An upsert: the row exists only once a key has changed. In PostgreSQL the function keeps the
 * migration's search_path, so an operator's session on another search_path still finds the table.
 */
const BUMP = `INSERT INTO key_epoch (id, epoch) VALUES (1, 1)
  ON CONFLICT (id) DO UPDATE SET epoch = key_epoch.epoch + 1;`;

export const keyEpochMigration: Migration = {
  id: 21,
  name: 'key epoch for cached key lookups',
  up: `
    CREATE TABLE key_epoch (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      epoch INTEGER NOT NULL
    );
    CREATE TABLE key_epoch_instances (
      instance TEXT PRIMARY KEY,
      seen_epoch INTEGER NOT NULL,
      heartbeat_at TEXT NOT NULL
    );
    CREATE TRIGGER api_keys_changed_epoch AFTER UPDATE OF revoked_at, scopes, key_hash ON api_keys
      FOR EACH ROW BEGIN ${BUMP} END;
    CREATE TRIGGER api_keys_deleted_epoch AFTER DELETE ON api_keys
      FOR EACH ROW BEGIN ${BUMP} END;
  `,
  postgres: `
    CREATE TABLE key_epoch (
      id BIGINT PRIMARY KEY CHECK (id = 1),
      epoch BIGINT NOT NULL
    );
    CREATE TABLE key_epoch_instances (
      instance TEXT COLLATE "C" PRIMARY KEY,
      seen_epoch BIGINT NOT NULL,
      heartbeat_at TEXT COLLATE "C" NOT NULL
    );
    CREATE FUNCTION bump_key_epoch() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN ${BUMP} RETURN NULL; END
    $$;
    CREATE TRIGGER api_keys_changed_epoch AFTER UPDATE OF revoked_at, scopes, key_hash ON api_keys
      FOR EACH ROW EXECUTE FUNCTION bump_key_epoch();
    CREATE TRIGGER api_keys_deleted_epoch AFTER DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION bump_key_epoch();
  `,
};
