import type { SqlExecutor } from '../../platform/db/sql.js';

export type CommerceEnv = 'sandbox' | 'live';

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  env: CommerceEnv;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function apiKeysStore(db: SqlExecutor) {
  return {
    async ensureAccount(account: { id: string; name: string; created_at: string }): Promise<void> {
      await db.run(
        'INSERT INTO accounts (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
        [account.id, account.name, account.created_at],
      );
    },
    async insert(
      key: Omit<ApiKeyRecord, 'last_used_at' | 'revoked_at'> & { key_hash: string },
    ): Promise<void> {
      await db.run(
        'INSERT INTO api_keys (id, account_id, env, name, prefix, key_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [key.id, key.account_id, key.env, key.name, key.prefix, key.key_hash, key.created_at],
      );
    },
    findActiveByHash(hash: string): Promise<ApiKeyRecord | undefined> {
      return db.get<ApiKeyRecord>(
        `SELECT id, account_id, env, name, prefix, created_at, last_used_at, revoked_at
           FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL`,
        [hash],
      );
    },
    listForAccount(accountId: string): Promise<ApiKeyRecord[]> {
      return db.all<ApiKeyRecord>(
        `SELECT id, account_id, env, name, prefix, created_at, last_used_at, revoked_at
           FROM api_keys WHERE account_id = ? ORDER BY created_at DESC, id DESC`,
        [accountId],
      );
    },
    get(accountId: string, id: string): Promise<ApiKeyRecord | undefined> {
      return db.get<ApiKeyRecord>(
        `SELECT id, account_id, env, name, prefix, created_at, last_used_at, revoked_at
           FROM api_keys WHERE account_id = ? AND id = ?`,
        [accountId, id],
      );
    },
    /** Sets `revoked_at` once; revoking a revoked key keeps the first time. */
    async revoke(accountId: string, id: string, at: string): Promise<void> {
      await db.run(
        'UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND id = ? AND revoked_at IS NULL',
        [at, accountId, id],
      );
    },
    async touch(id: string, at: string): Promise<void> {
      await db.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [at, id]);
    },
  };
}
