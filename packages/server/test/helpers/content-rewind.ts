import type Database from 'better-sqlite3';
import { EARLIER_CALLS as EARLIER_BY_RANGE } from '../../src/content/db/migrations/024-call-log-recent-by-id.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';

/**
 * What undoes each content migration from 7 on, on SQLite: the tests of a migration's data
 * fix-up take a database back to the schema before it, write rows only the old schema allowed,
 * then migrate forward again. Every later step must be undone too, or it would run again over
 * its own columns. Keeping the undos here, one per migration, means a new migration adds one
 * line here instead of editing every such test.
 */
const undo: Record<number, string> = {
  7: `DROP INDEX posts_one_per_slot; DROP INDEX approvals_one_pending_per_draft;
      ALTER TABLE posts DROP COLUMN slot_hour;`,
  8: 'ALTER TABLE oauth_states DROP COLUMN browser_hash;',
  9: 'DROP TABLE key_rate_windows;',
  10: `DROP TRIGGER digests_seq; DROP TRIGGER automation_fires_seq;
       ALTER TABLE digests DROP COLUMN seq; ALTER TABLE automation_fires DROP COLUMN seq;`,
  11: 'DROP TABLE media_references;',
  12: `DROP TABLE leases; DROP TABLE content_events;
       ALTER TABLE automations DROP COLUMN lease_owner; ALTER TABLE automations DROP COLUMN lease_until;`,
  13: 'ALTER TABLE brands DROP COLUMN time_zone;',
  14: `DROP TABLE automation_run_counts;
       ALTER TABLE publish_attempts DROP COLUMN owner; ALTER TABLE publish_attempts DROP COLUMN lease_until;`,
  15: 'ALTER TABLE idempotency_keys DROP COLUMN owner;',
  16: 'ALTER TABLE media_assets DROP COLUMN title;',
  17: 'DROP TABLE brand_baselines;',
  18: 'DROP INDEX posts_growing;',
  19: 'ALTER TABLE brand_baselines DROP COLUMN histogram;',
  20: 'DROP INDEX posts_brand_published;',
  21: `DROP TRIGGER api_keys_changed_epoch; DROP TRIGGER api_keys_deleted_epoch;
       DROP TABLE key_epoch_instances; DROP TABLE key_epoch;`,
  // PostgreSQL only (a TRUNCATE trigger); nothing to undo on SQLite.
  22: '',
  23: `DROP INDEX mcp_calls_created; DROP INDEX mcp_calls_key;
       CREATE INDEX mcp_calls_created ON mcp_calls (created_at DESC, id DESC);
       CREATE INDEX mcp_calls_key ON mcp_calls (key_id, created_at DESC, id DESC);`,
  24: `CREATE INDEX mcp_calls_created ON mcp_calls (created_at, id); DROP INDEX mcp_calls_earlier;`,
  25: `DROP INDEX mcp_calls_earlier; ALTER TABLE mcp_calls DROP COLUMN id_sorts_by_time;
       CREATE INDEX mcp_calls_earlier ON mcp_calls (created_at, id) WHERE ${EARLIER_BY_RANGE};`,
};

/** Takes a migrated content database back to the schema before migration `before`. */
export function rewindContentSchema(db: Database.Database, before: number): void {
  const later = contentMigrations.filter((m) => m.id >= before).sort((a, b) => b.id - a.id);
  for (const m of later) {
    const sql = undo[m.id];
    if (sql === undefined)
      throw new Error(
        `test/helpers/content-rewind.ts has no undo for content migration ${m.id} (${m.name}): add the SQL that reverses it.`,
      );
    db.exec(sql);
  }
  db.prepare('DELETE FROM schema_migrations WHERE id >= ?').run(before);
}
