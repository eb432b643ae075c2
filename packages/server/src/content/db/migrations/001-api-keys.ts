import type { Migration } from '../../../platform/db/sql.js';

export const apiKeysMigration: Migration = {
  id: 1,
  name: 'api keys',
  up: `
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        scopes TEXT NOT NULL,
        prefix TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      );
    `,
  postgres: `
      CREATE TABLE api_keys (
        id TEXT COLLATE "C" PRIMARY KEY,
        name TEXT COLLATE "C" NOT NULL,
        scopes TEXT COLLATE "C" NOT NULL,
        prefix TEXT COLLATE "C" NOT NULL,
        key_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        created_at TEXT COLLATE "C" NOT NULL,
        last_used_at TEXT COLLATE "C",
        revoked_at TEXT COLLATE "C"
      );
    `,
};
