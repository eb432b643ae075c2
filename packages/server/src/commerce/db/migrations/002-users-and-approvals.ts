import type { Migration } from '../../../platform/db/sql.js';

export const usersAndApprovals: Migration = {
  id: 2,
  name: 'users, user tokens, approvals and public tokens',
  up: `
    CREATE TABLE users (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id),
      env TEXT NOT NULL CHECK (env IN ('sandbox', 'live')),
      client_user_id TEXT NOT NULL,
      created_at TEXT NOT NULL,
      UNIQUE (account_id, env, client_user_id)
    );
    CREATE TABLE user_tokens (
      token_hash TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id),
      account_id TEXT NOT NULL,
      env TEXT NOT NULL,
      rules TEXT NOT NULL,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    );
    CREATE TABLE approvals (
      id TEXT PRIMARY KEY,
      token_hash TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL,
      env TEXT NOT NULL,
      key_id TEXT NOT NULL,
      app_name TEXT NOT NULL,
      client_user_id TEXT NOT NULL,
      rules TEXT NOT NULL,
      merchant_ids TEXT NOT NULL,
      redirect_uri TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'declined')),
      form_token_hash TEXT,
      user_id TEXT,
      expires_at TEXT NOT NULL,
      decided_at TEXT,
      created_at TEXT NOT NULL
    );
    CREATE TABLE public_tokens (
      token_hash TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      env TEXT NOT NULL,
      user_id TEXT NOT NULL REFERENCES users(id),
      rules TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      used_at TEXT,
      created_at TEXT NOT NULL
    );
  `,
  postgres: `
    CREATE TABLE users (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
      env TEXT COLLATE "C" NOT NULL CHECK (env IN ('sandbox', 'live')),
      client_user_id TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      UNIQUE (account_id, env, client_user_id)
    );
    CREATE TABLE user_tokens (
      token_hash TEXT COLLATE "C" PRIMARY KEY,
      user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id),
      account_id TEXT COLLATE "C" NOT NULL,
      env TEXT COLLATE "C" NOT NULL,
      rules TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      revoked_at TEXT COLLATE "C"
    );
    CREATE TABLE approvals (
      id TEXT COLLATE "C" PRIMARY KEY,
      token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
      account_id TEXT COLLATE "C" NOT NULL,
      env TEXT COLLATE "C" NOT NULL,
      key_id TEXT COLLATE "C" NOT NULL,
      app_name TEXT COLLATE "C" NOT NULL,
      client_user_id TEXT COLLATE "C" NOT NULL,
      rules TEXT COLLATE "C" NOT NULL,
      merchant_ids TEXT COLLATE "C" NOT NULL,
      redirect_uri TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL CHECK (status IN ('pending', 'approved', 'declined')),
      form_token_hash TEXT COLLATE "C",
      user_id TEXT COLLATE "C",
      expires_at TEXT COLLATE "C" NOT NULL,
      decided_at TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE TABLE public_tokens (
      token_hash TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      env TEXT COLLATE "C" NOT NULL,
      user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id),
      rules TEXT COLLATE "C" NOT NULL,
      expires_at TEXT COLLATE "C" NOT NULL,
      used_at TEXT COLLATE "C",
      created_at TEXT COLLATE "C" NOT NULL
    );
  `,
};
