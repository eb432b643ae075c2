import type { Migration } from '../../../platform/db/sql.js';

/**
 * Never publish twice. Every call to a platform's publish is recorded here, in its own committed
 * transaction, BEFORE the call; its outcome is written after. A row without an outcome at
 * start-up means the server died mid-call: the post may be live, so it becomes `unconfirmed`
 * and is never sent again by the service.
 *
 * On posts: `retry_at` holds a scheduled post back (429 Retry-After, a 5xx backoff);
 * `external_ids` lists every part already out (threads), so a retry sends only the rest;
 * `notice` tells the person what happened and what to do (unconfirmed, waiting to retry).
 */
export const publishAttemptsMigration: Migration = {
  id: 6,
  name: 'publish attempts',
  up: `
    CREATE TABLE publish_attempts (
      id TEXT PRIMARY KEY,
      post_id TEXT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
      platform TEXT NOT NULL,
      started_at TEXT NOT NULL,
      finished_at TEXT,
      outcome TEXT CHECK (outcome IN ('published', 'failed', 'retry', 'unconfirmed')),
      external_ids TEXT NOT NULL DEFAULT '[]',
      error TEXT
    );
    CREATE INDEX publish_attempts_post ON publish_attempts (post_id, started_at);
    CREATE INDEX publish_attempts_open ON publish_attempts (started_at) WHERE outcome IS NULL;

    ALTER TABLE posts ADD COLUMN retry_at TEXT;
    ALTER TABLE posts ADD COLUMN external_ids TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE posts ADD COLUMN notice TEXT;
  `,
  postgres: `
    CREATE TABLE publish_attempts (
      id TEXT COLLATE "C" PRIMARY KEY,
      post_id TEXT COLLATE "C" NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
      platform TEXT COLLATE "C" NOT NULL,
      started_at TEXT COLLATE "C" NOT NULL,
      finished_at TEXT COLLATE "C",
      outcome TEXT COLLATE "C" CHECK (outcome IN ('published', 'failed', 'retry', 'unconfirmed')),
      external_ids TEXT COLLATE "C" NOT NULL DEFAULT '[]',
      error TEXT COLLATE "C"
    );
    CREATE INDEX publish_attempts_post ON publish_attempts (post_id, started_at);
    CREATE INDEX publish_attempts_open ON publish_attempts (started_at) WHERE outcome IS NULL;

    ALTER TABLE posts ADD COLUMN retry_at TEXT COLLATE "C";
    ALTER TABLE posts ADD COLUMN external_ids TEXT COLLATE "C" NOT NULL DEFAULT '[]';
    ALTER TABLE posts ADD COLUMN notice TEXT COLLATE "C";
  `,
};
