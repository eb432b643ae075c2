import { fromJson, toJson } from '../../platform/db/json.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import type { CommerceEnv } from './api-keys-store.js';

export interface Scope {
  accountId: string;
  env: CommerceEnv;
}

export interface UserRecord {
  id: string;
  account_id: string;
  env: CommerceEnv;
  client_user_id: string;
  created_at: string;
}

export interface UserTokenRecord {
  user_id: string;
  account_id: string;
  env: CommerceEnv;
  rules: unknown;
}

export function usersStore(db: SqlExecutor) {
  return {
    findByClientId(scope: Scope, clientUserId: string): Promise<UserRecord | undefined> {
      return db.get<UserRecord>(
        'SELECT * FROM users WHERE account_id = ? AND env = ? AND client_user_id = ?',
        [scope.accountId, scope.env, clientUserId],
      );
    },
    /** Inserts the user unless one with the same (account, env, client_user_id) exists. */
    async insertIfMissing(user: UserRecord): Promise<void> {
      await db.run(
        `INSERT INTO users (id, account_id, env, client_user_id, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (account_id, env, client_user_id) DO NOTHING`,
        [user.id, user.account_id, user.env, user.client_user_id, user.created_at],
      );
    },
    async insertToken(t: UserTokenRecord & { token_hash: string; created_at: string }): Promise<void> {
      await db.run(
        'INSERT INTO user_tokens (token_hash, user_id, account_id, env, rules, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        [t.token_hash, t.user_id, t.account_id, t.env, toJson(t.rules), t.created_at],
      );
    },
    async findToken(tokenHash: string): Promise<UserTokenRecord | undefined> {
      const row = await db.get<UserTokenRecord & { rules: string }>(
        'SELECT user_id, account_id, env, rules FROM user_tokens WHERE token_hash = ? AND revoked_at IS NULL',
        [tokenHash],
      );
      return row && { ...row, rules: fromJson(row.rules) };
    },
    async insertPublicToken(t: {
      token_hash: string;
      account_id: string;
      env: CommerceEnv;
      user_id: string;
      rules: unknown;
      expires_at: string;
      created_at: string;
    }): Promise<void> {
      await db.run(
        `INSERT INTO public_tokens (token_hash, account_id, env, user_id, rules, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [t.token_hash, t.account_id, t.env, t.user_id, toJson(t.rules), t.expires_at, t.created_at],
      );
    },
    async findPublicToken(scope: Scope, tokenHash: string) {
      const row = await db.get<{
        user_id: string;
        rules: string;
        expires_at: string;
        used_at: string | null;
      }>(
        'SELECT user_id, rules, expires_at, used_at FROM public_tokens WHERE token_hash = ? AND account_id = ? AND env = ?',
        [tokenHash, scope.accountId, scope.env],
      );
      return row && { ...row, rules: fromJson<unknown>(row.rules) };
    },
    /** Marks the token used; false when another request used it first. */
    async usePublicToken(tokenHash: string, at: string): Promise<boolean> {
      const { changes } = await db.run(
        'UPDATE public_tokens SET used_at = ? WHERE token_hash = ? AND used_at IS NULL',
        [at, tokenHash],
      );
      return changes === 1;
    },
  };
}
