import type { Migration } from '../../platform/db/sqlite.js';

export const commerceMigrations: Migration[] = [
  {
    id: 1,
    name: 'accounts and api keys',
    up: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id),
        env TEXT NOT NULL CHECK (env IN ('sandbox', 'live')),
        name TEXT NOT NULL,
        prefix TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
      );
    `,
  },
];
