import { lastUsedIsStale, sha256Hex } from '../../platform/api-key-hash.js';
import type { SqlDatabase, SqlExecutor } from '../../platform/db/sql.js';
import { AppError } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import type { ServiceDeps } from '../../platform/service.js';
import { type ApiKeyRecord, apiKeysStore, type CommerceEnv } from '../db/api-keys-store.js';
import { commerceStores } from '../db/stores.js';

/** Self-hosted installs have one account; keys made by the CLI belong to it. */
export const DEFAULT_ACCOUNT_ID = 'acct_default';

export const keyPrefixFor = (env: CommerceEnv) => (env === 'sandbox' ? 'svc_test_' : 'svc_live_');

export interface CommerceKeyContext {
  keyId: string;
  accountId: string;
  env: CommerceEnv;
  /** The key's name, shown to users on the hosted approval page as the application's name. */
  name: string;
}

export async function createCommerceApiKey(
  db: SqlExecutor,
  deps: Pick<ServiceDeps, 'clock' | 'ids'>,
  input: { env: CommerceEnv; name: string; accountName?: string },
): Promise<{ key: string; record: ApiKeyRecord }> {
  const store = apiKeysStore(db);
  const now = deps.clock.now().toISOString();
  await store.ensureAccount({
    id: DEFAULT_ACCOUNT_ID,
    name: input.accountName ?? 'Default account',
    created_at: now,
  });
  const key = `${keyPrefixFor(input.env)}${randomBase62(32)}`;
  const record: ApiKeyRecord = {
    id: deps.ids.make('key'),
    account_id: DEFAULT_ACCOUNT_ID,
    env: input.env,
    name: input.name,
    prefix: key.slice(0, 12),
    created_at: now,
    last_used_at: null,
    revoked_at: null,
  };
  await store.insert({ ...record, key_hash: sha256Hex(key) });
  return { key, record };
}

/** Every key of the account, newest first, revoked ones included. The secret itself is never stored. */
export const listApiKeys = (db: SqlExecutor, accountId: string): Promise<ApiKeyRecord[]> =>
  apiKeysStore(db).listForAccount(accountId);

/**
 * Revokes a key. Authentication looks the key up on every request, so the next request made
 * with it fails with 401 INVALID_API_KEY. Revoking a revoked key changes nothing.
 */
export async function revokeApiKey(
  db: SqlDatabase,
  deps: Pick<ServiceDeps, 'clock'>,
  accountId: string,
  id: string,
): Promise<ApiKeyRecord> {
  return db.transaction(async (tx) => {
    const store = apiKeysStore(tx);
    const key = await store.get(accountId, id);
    if (!key) throw new AppError(404, 'NOT_FOUND', `No API key with id '${id}'.`);
    if (key.revoked_at) return key;
    const at = deps.clock.now().toISOString();
    await store.revoke(accountId, id, at);
    return { ...key, revoked_at: at };
  });
}

const KEY_SHAPE = /^svc_(test|live)_[0-9A-Za-z]{32,}$/;

/** Resolves a bearer key to its account and environment, or fails with 401. */
export async function authenticateCommerceKey(
  db: SqlExecutor,
  deps: Pick<ServiceDeps, 'clock'>,
  key: string | null,
): Promise<CommerceKeyContext> {
  if (!key) {
    throw new AppError(
      401,
      'AUTHENTICATION_REQUIRED',
      "Send your API key as 'Authorization: Bearer svc_test_...'.",
      {
        headers: { 'WWW-Authenticate': 'Bearer' },
      },
    );
  }
  const keys = commerceStores(db).apiKeys;
  const record = KEY_SHAPE.test(key) ? await keys.findActiveByHash(sha256Hex(key)) : undefined;
  if (!record) {
    throw new AppError(401, 'INVALID_API_KEY', 'The API key is not valid or has been revoked.', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  const now = deps.clock.now();
  if (lastUsedIsStale(record.last_used_at, now)) await keys.touch(record.id, now.toISOString());
  return { keyId: record.id, accountId: record.account_id, env: record.env, name: record.name };
}
