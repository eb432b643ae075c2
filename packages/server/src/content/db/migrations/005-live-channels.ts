// TEMPORARY STUB (live-publish): live-connect owns this file; replaced by theirs at `git merge live-connect`.
import type { Migration } from '../../../platform/db/sqlite.js';

export const liveChannelsMigration: Migration = {
  id: 5,
  name: 'live channels (stub)',
  up: `CREATE TABLE channel_tokens (channel_id TEXT PRIMARY KEY, access_token TEXT NOT NULL, refresh_token TEXT, expires_at TEXT);`,
};
