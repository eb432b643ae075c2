import type { Migration } from '../../../platform/db/sql.js';

/**
 * Live channels (issue 12): the tokens an OAuth connect gives, and the connect flows in flight.
 *
 * - Channels gain `platform_user_id`: the platform's id of the account a live channel is, so a
 *   reconnect of the same account finds its channel again (and another account does not).
 * - `channel_credentials`: one row per connected live channel, deleted on disconnect. `access_token` and `refresh_token` are
 *   sealed with SERVICE_SECRET_KEY (platform/crypto/secret-box.ts, AES-256-GCM); nothing here is
 *   readable without it.
 * - `oauth_states`: one row per started connect. The `state` sent to the platform is stored only
 *   as its SHA-256 (the database never holds what completes a flow); the PKCE verifier is sealed.
 *   A state is good once (`used_at`) and for ten minutes (`expires_at`).
 * - Channels gain the status `needs_reconnect` (a token refresh failed: the person must connect
 *   again) with `status_reason` saying why. Such a channel is still the brand's channel for its
 *   platform, so the one-per-platform index now covers it too: a brand has at most one channel
 *   per platform that is connected or waiting to be reconnected.
 */
export const liveChannelsMigration: Migration = {
  id: 5,
  name: 'live channels: credentials and oauth states',
  up: `
    ALTER TABLE channels ADD COLUMN status_reason TEXT;
    ALTER TABLE channels ADD COLUMN platform_user_id TEXT;
    DROP INDEX channels_one_per_platform;
    CREATE UNIQUE INDEX channels_one_per_platform ON channels (brand_id, platform)
      WHERE status IN ('connected', 'needs_reconnect');

    CREATE TABLE channel_credentials (
      channel_id TEXT PRIMARY KEY REFERENCES channels(id) ON DELETE CASCADE,
      access_token TEXT NOT NULL,
      refresh_token TEXT,
      expires_at TEXT,
      scopes TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );

    CREATE TABLE oauth_states (
      state_hash TEXT PRIMARY KEY,
      brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      platform TEXT NOT NULL,
      code_verifier TEXT NOT NULL,
      redirect_uri TEXT NOT NULL,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      used_at TEXT
    );
    CREATE INDEX oauth_states_expiry ON oauth_states (expires_at);
  `,
  postgres: `
    ALTER TABLE channels ADD COLUMN status_reason TEXT COLLATE "C";
    ALTER TABLE channels ADD COLUMN platform_user_id TEXT COLLATE "C";
    DROP INDEX channels_one_per_platform;
    CREATE UNIQUE INDEX channels_one_per_platform ON channels (brand_id, platform)
      WHERE status IN ('connected', 'needs_reconnect');

    CREATE TABLE channel_credentials (
      channel_id TEXT COLLATE "C" PRIMARY KEY REFERENCES channels(id) ON DELETE CASCADE,
      access_token TEXT COLLATE "C" NOT NULL,
      refresh_token TEXT COLLATE "C",
      expires_at TEXT COLLATE "C",
      scopes TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );

    CREATE TABLE oauth_states (
      state_hash TEXT COLLATE "C" PRIMARY KEY,
      brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
      platform TEXT COLLATE "C" NOT NULL,
      code_verifier TEXT COLLATE "C" NOT NULL,
      redirect_uri TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      expires_at TEXT COLLATE "C" NOT NULL,
      used_at TEXT COLLATE "C"
    );
    CREATE INDEX oauth_states_expiry ON oauth_states (expires_at);
  `,
};
