import type { Migration } from '../../../platform/db/sql.js';

/**
 * The key epoch (migration 21) also moves on `TRUNCATE api_keys`. PostgreSQL fires no row trigger
 * for a TRUNCATE, so an operator who emptied the table by hand left the epoch where it was, and
 * every instance kept accepting the removed keys from its cache for as long as it ran (found by
 * the ninth pass, test/security/key-epoch-truncate.postgres.test.ts). A statement trigger moves it
 * in the TRUNCATE's transaction, with the same function as the row triggers.
 *
 * SQLite has no TRUNCATE: its `DELETE FROM api_keys` without WHERE still fires the row trigger (a
 * table with triggers is never emptied by the truncate shortcut), so there is nothing to add there.
 */
export const keyEpochTruncateMigration: Migration = {
  id: 22,
  name: 'key epoch moves on TRUNCATE',
  up: () => {},
  postgres: `
    CREATE TRIGGER api_keys_truncated_epoch AFTER TRUNCATE ON api_keys
      FOR EACH STATEMENT EXECUTE FUNCTION bump_key_epoch();
  `,
};
