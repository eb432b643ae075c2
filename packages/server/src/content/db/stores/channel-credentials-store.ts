import type { SqlExecutor } from '../../../platform/db/sql.js';

/** Sealed tokens of one live channel (migration 005). Token columns hold secret-box values only. */
export interface ChannelCredentialsRow {
  channel_id: string;
  access_token: string;
  refresh_token: string | null;
  expires_at: string | null;
  /** Space-separated, as OAuth writes scopes. */
  scopes: string;
  created_at: string;
  updated_at: string;
}

export interface OAuthStateRow {
  state_hash: string;
  brand_id: string;
  platform: string;
  code_verifier: string;
  redirect_uri: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** SHA-256 of the value in the starting browser's cookie; null for states from before it existed. */
  browser_hash: string | null;
}

export function channelCredentialsStore(db: SqlExecutor) {
  return {
    get: (channelId: string) =>
      db.get<ChannelCredentialsRow>('SELECT * FROM channel_credentials WHERE channel_id = ?', [channelId]),
    async upsert(r: ChannelCredentialsRow) {
      await db.run(
        `INSERT INTO channel_credentials
           (channel_id, access_token, refresh_token, expires_at, scopes, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (channel_id) DO UPDATE SET
           access_token = excluded.access_token,
           refresh_token = excluded.refresh_token,
           expires_at = excluded.expires_at,
           scopes = excluded.scopes,
           updated_at = excluded.updated_at`,
        [r.channel_id, r.access_token, r.refresh_token, r.expires_at, r.scopes, r.created_at, r.updated_at],
      );
    },
    /**
     * Compare-and-set: writes the tokens only over the sealed access token `read` (every seal is
     * unique, so any write since, a reconnect or a disconnect, makes it fail); true when written.
     */
    async replace(r: Omit<ChannelCredentialsRow, 'created_at'>, read: string) {
      const done = await db.run(
        `UPDATE channel_credentials
            SET access_token = ?, refresh_token = ?, expires_at = ?, scopes = ?, updated_at = ?
          WHERE channel_id = ? AND access_token = ?`,
        [r.access_token, r.refresh_token, r.expires_at, r.scopes, r.updated_at, r.channel_id, read],
      );
      return done.changes > 0;
    },
    remove: (channelId: string) =>
      db.run('DELETE FROM channel_credentials WHERE channel_id = ?', [channelId]),
  };
}

export function oauthStatesStore(db: SqlExecutor) {
  return {
    async insert(r: OAuthStateRow) {
      await db.run(
        `INSERT INTO oauth_states (state_hash, brand_id, platform, code_verifier, redirect_uri, created_at, expires_at, used_at, browser_hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          r.state_hash,
          r.brand_id,
          r.platform,
          r.code_verifier,
          r.redirect_uri,
          r.created_at,
          r.expires_at,
          r.used_at,
          r.browser_hash,
        ],
      );
    },
    get: (stateHash: string) =>
      db.get<OAuthStateRow>('SELECT * FROM oauth_states WHERE state_hash = ?', [stateHash]),
    /** Claims the state for one callback; false when another already used it. */
    async use(stateHash: string, at: string) {
      const r = await db.run('UPDATE oauth_states SET used_at = ? WHERE state_hash = ? AND used_at IS NULL', [
        at,
        stateHash,
      ]);
      return r.changes > 0;
    },
    /** Old flows: a day after they expired, kept that long so a late replay still says "used" or "expired". */
    purge: (before: string) => db.run('DELETE FROM oauth_states WHERE expires_at < ?', [before]),
  };
}
