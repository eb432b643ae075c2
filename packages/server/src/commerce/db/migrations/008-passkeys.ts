import type { Migration } from '../../../platform/db/sql.js';

export const passkeys: Migration = {
  id: 8,
  name: 'passkeys: the WebAuthn credentials users register, and the one-time challenges pages issue',
  up: `
    -- A user's passkey: what verifies their signature when they confirm a live total above
    -- confirm_above. The credential id and COSE public key are base64url; nothing here is secret.
    CREATE TABLE passkeys (
      id TEXT PRIMARY KEY,
      user_id TEXT NOT NULL REFERENCES users(id),
      rp_id TEXT NOT NULL,
      public_key TEXT NOT NULL,
      counter INTEGER NOT NULL DEFAULT 0,
      transports TEXT NOT NULL DEFAULT '[]',
      created_at TEXT NOT NULL,
      last_used_at TEXT
    );
    CREATE INDEX passkeys_user ON passkeys (user_id);

    -- The challenge a hosted page handed to the browser, stored only as a hash, one at a time per
    -- page subject and purpose (an approval or a checkout: a newer render replaces it), taken once on submit.
    CREATE TABLE webauthn_challenges (
      purpose TEXT NOT NULL CHECK (purpose IN ('register', 'approve', 'confirm')),
      subject_id TEXT NOT NULL,
      challenge_hash TEXT NOT NULL,
      rp_id TEXT NOT NULL,
      origin TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      PRIMARY KEY (purpose, subject_id)
    );
  `,
  postgres: `
    CREATE TABLE passkeys (
      id TEXT COLLATE "C" PRIMARY KEY,
      user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id),
      rp_id TEXT COLLATE "C" NOT NULL,
      public_key TEXT COLLATE "C" NOT NULL,
      counter BIGINT NOT NULL DEFAULT 0,
      transports TEXT COLLATE "C" NOT NULL DEFAULT '[]',
      created_at TEXT COLLATE "C" NOT NULL,
      last_used_at TEXT COLLATE "C"
    );
    CREATE INDEX passkeys_user ON passkeys (user_id);

    CREATE TABLE webauthn_challenges (
      purpose TEXT COLLATE "C" NOT NULL CHECK (purpose IN ('register', 'approve', 'confirm')),
      subject_id TEXT COLLATE "C" NOT NULL,
      challenge_hash TEXT COLLATE "C" NOT NULL,
      rp_id TEXT COLLATE "C" NOT NULL,
      origin TEXT COLLATE "C" NOT NULL,
      expires_at TEXT COLLATE "C" NOT NULL,
      PRIMARY KEY (purpose, subject_id)
    );
  `,
};
