import { lastUsedIsStale, sha256Hex } from '../../platform/api-key-hash.js';
import type { SqlExecutor } from '../../platform/db/sqlite.js';
import { AppError, notFound } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import type { ServiceDeps } from '../../platform/service.js';
import { type ApiKeyRecord, apiKeysStore, type CommerceEnv } from '../db/api-keys-store.js';

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
): Promise<{ key: string; record: Pick<ApiKeyRecord, 'id' | 'env' | 'name' | 'prefix'> }> {
  const store = apiKeysStore(db);
  const now = deps.clock.now().toISOString();
  await store.ensureAccount({
    id: DEFAULT_ACCOUNT_ID,
    name: input.accountName ?? 'Default account',
    created_at: now,
  });
  const key = `${keyPrefixFor(input.env)}${randomBase62(32)}`;
  const record = { id: deps.ids.make('key'), env: input.env, name: input.name, prefix: key.slice(0, 12) };
  await store.insert({
    ...record,
    account_id: DEFAULT_ACCOUNT_ID,
    key_hash: sha256Hex(key),
    created_at: now,
  });
  return { key, record };
}

/** What lists show of a key: never the key itself, nor its hash. */
export type CommerceApiKeyView = Omit<ApiKeyRecord, 'account_id'>;

const view = ({ account_id: _account, ...rest }: ApiKeyRecord): CommerceApiKeyView => rest;

/** The account's keys that still work, newest first. */
export async function listApiKeys(
  db: SqlExecutor,
  accountId: string = DEFAULT_ACCOUNT_ID,
): Promise<CommerceApiKeyView[]> {
  return (await apiKeysStore(db).listActive(accountId)).map(view);
}

/**
 * Revokes one of the account's keys; the next request with it gets 401 (keys are looked up on
 * every request). Revoking twice is harmless and says so; an unknown id is a 404.
 */
export async function revokeApiKey(
  db: SqlExecutor,
  deps: Pick<ServiceDeps, 'clock'>,
  id: string,
  accountId: string = DEFAULT_ACCOUNT_ID,
): Promise<{ apiKey: CommerceApiKeyView; already_revoked: boolean }> {
  const store = apiKeysStore(db);
  const record = await store.find(accountId, id);
  if (!record) throw notFound('API key', id);
  const now = deps.clock.now().toISOString();
  const revokedNow = await store.revoke(id, now);
  const current = revokedNow ? { ...record, revoked_at: now } : ((await store.find(accountId, id)) ?? record);
  return { apiKey: view(current), already_revoked: !revokedNow };
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
  const record = KEY_SHAPE.test(key) ? await apiKeysStore(db).findActiveByHash(sha256Hex(key)) : undefined;
  if (!record) {
    throw new AppError(401, 'INVALID_API_KEY', 'The API key is not valid or has been revoked.', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  const now = deps.clock.now();
  if (lastUsedIsStale(record.last_used_at, now)) await apiKeysStore(db).touch(record.id, now.toISOString());
  return { keyId: record.id, accountId: record.account_id, env: record.env, name: record.name };
}
