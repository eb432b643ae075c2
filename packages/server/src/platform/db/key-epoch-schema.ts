/**
 * The key epoch's tables and triggers, which both services create on their own `api_keys` (content
 * migrations 21-22, commerce migration 16): one counter that moves whenever a key may have become
 * unusable, so an instance that caches key lookups (platform/key-cache.ts) can tell with one cheap
 * read that its cache may be stale.
 *
 * - `key_epoch`: the counter, at most one row; no row reads as 0. It is not seeded, so a new
 *   database stays empty until used (migrate-to-postgres fills only empty targets). The triggers
 *   bump it in the same transaction as the change: an UPDATE of a column the cache keeps or judges
 *   by (`watched`: the revoke's `revoked_at`, the hash, scopes or environment), a deleted row. A
 *   trigger rather than the service: every path (the REST route, `svc-server keys revoke`, an
 *   operator's SQL) moves it, and a path added later cannot forget to. `last_used_at` (the
 *   throttled stamp) does not move it. Nor does an INSERT: a new key cannot be in any cache (only
 *   keys found are cached, by hash), and migrate-to-postgres copies `api_keys` into the new
 *   database before `key_epoch`, so a bump there would collide with the copied counter.
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

/** The SQLite and PostgreSQL steps of the migration that adds the epoch to a service. */
export function keyEpochSql(watched: readonly string[]): { up: string; postgres: string } {
  const columns = watched.join(', ');
  return {
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
    CREATE TRIGGER api_keys_changed_epoch AFTER UPDATE OF ${columns} ON api_keys
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
    CREATE TRIGGER api_keys_changed_epoch AFTER UPDATE OF ${columns} ON api_keys
      FOR EACH ROW EXECUTE FUNCTION bump_key_epoch();
    CREATE TRIGGER api_keys_deleted_epoch AFTER DELETE ON api_keys
      FOR EACH ROW EXECUTE FUNCTION bump_key_epoch();
  `,
  };
}

/**
 * PostgreSQL fires no row trigger for a TRUNCATE, so an operator who emptied `api_keys` by hand
 * left the epoch where it was, and every instance kept accepting the removed keys from its cache
 * for as long as it ran (content's ninth pass). A statement trigger moves it in the TRUNCATE's
 * transaction, with the same function as the row triggers. SQLite has no TRUNCATE: its `DELETE`
 * without WHERE still fires the row trigger (a table with triggers is never emptied by the
 * truncate shortcut), so there is nothing to add there.
 */
export const KEY_EPOCH_TRUNCATE_POSTGRES = `
    CREATE TRIGGER api_keys_truncated_epoch AFTER TRUNCATE ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION bump_key_epoch();
  `;
