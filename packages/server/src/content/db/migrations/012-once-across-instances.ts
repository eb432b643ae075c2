import { LEASES_TABLE_POSTGRES, LEASES_TABLE_SQLITE } from '../../../platform/db/leases-store.js';
import type { Migration } from '../../../platform/db/sql.js';

/**
 * What lets several instances share one database and still do each piece of work once:
 *
 * - `leases`: named leases with an expiry (platform/db/leases-store.ts): the background pass,
 *   a channel's token refresh.
 * - `automations.lease_owner/lease_until`: a due scheduled automation is claimed in one
 *   conditional statement before it fires; a claim whose instance died runs out and is taken again.
 * - `content_events`: the outbox of post events (`post.published`, `post.metrics_settled`),
 *   written in the transaction that publishes or settles the post, and consumed by claim, so an
 *   automation listening for it fires once even when the instance that published dies at once.
 */
export const onceAcrossInstancesMigration: Migration = {
  id: 12,
  name: 'leases and the content event outbox',
  up: `
    ${LEASES_TABLE_SQLITE}
    ALTER TABLE automations ADD COLUMN lease_owner TEXT;
    ALTER TABLE automations ADD COLUMN lease_until TEXT;
    CREATE TABLE content_events (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      brand_id TEXT NOT NULL,
      post_id TEXT NOT NULL,
      at TEXT NOT NULL,
      created_at TEXT NOT NULL,
      lease_owner TEXT,
      lease_until TEXT,
      done_at TEXT
    );
    CREATE INDEX content_events_pending ON content_events (done_at, created_at, id);
  `,
  postgres: `
    ${LEASES_TABLE_POSTGRES}
    ALTER TABLE automations ADD COLUMN lease_owner TEXT COLLATE "C";
    ALTER TABLE automations ADD COLUMN lease_until TEXT COLLATE "C";
    CREATE TABLE content_events (
      id TEXT COLLATE "C" PRIMARY KEY,
      name TEXT COLLATE "C" NOT NULL,
      brand_id TEXT COLLATE "C" NOT NULL,
      post_id TEXT COLLATE "C" NOT NULL,
      at TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      lease_owner TEXT COLLATE "C",
      lease_until TEXT COLLATE "C",
      done_at TEXT COLLATE "C"
    );
    CREATE INDEX content_events_pending ON content_events (done_at, created_at, id);
  `,
};
