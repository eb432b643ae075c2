import { sha256Hex } from '../../platform/api-key-hash.js';
import type { SqlDatabase, SqlExecutor } from '../../platform/db/sql.js';
import { AppError } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import {
  awaitKeyEpochSeen,
  findCachedKey,
  type KeyCache,
  type RevokeWait,
} from '../../platform/key-cache.js';
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

/** Commerce keys found by hash, cached per instance under a lease on the key epoch (migration 16). */
export type CommerceKeyCache = KeyCache<ApiKeyRecord>;

/**
 * Revokes a key. Returns only once no instance on the database accepts it: the revoke moves the
 * key epoch in its own transaction (a trigger, migration 16), and this waits until every running
 * instance has dropped its cached keys for it (platform/key-cache.ts), so the next request made
 * with the key fails with 401 INVALID_API_KEY wherever it lands. Revoking a revoked key changes
 * nothing and waits for nothing.
 */
export async function revokeApiKey(
  db: SqlDatabase,
  deps: Pick<ServiceDeps, 'clock'> & RevokeWait,
  accountId: string,
  id: string,
): Promise<ApiKeyRecord> {
  const at = deps.clock.now().toISOString();
  const { key, epoch } = await db.transaction(async (tx) => {
    const stores = commerceStores(tx);
    const found = await stores.apiKeys.get(accountId, id);
    if (!found) throw new AppError(404, 'NOT_FOUND', `No API key with id '${id}'.`);
    if (found.revoked_at) return { key: found, epoch: null };
    await stores.apiKeys.revoke(accountId, id, at);
    return { key: { ...found, revoked_at: at }, epoch: await stores.keyEpoch.read() };
  });
  if (epoch !== null) await awaitKeyEpochSeen({ keyEpoch: commerceStores(db).keyEpoch }, deps, epoch, id);
  return key;
}

const KEY_SHAPE = /^svc_(test|live)_[0-9A-Za-z]{32,}$/;

/**
 * Resolves a bearer key to its account and environment, or fails with 401. With a key cache (the
 * app's), a key found before is answered without a SELECT while the epoch's lease is fresh.
 */
export async function authenticateCommerceKey(
  db: SqlExecutor,
  deps: Pick<ServiceDeps, 'clock'> & { keyCache?: CommerceKeyCache },
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
  const record = KEY_SHAPE.test(key)
    ? await findCachedKey(deps.keyCache, sha256Hex(key), keys, deps.clock.now())
    : null;
  // A key answers only in the environment its prefix names. The row's `env` is what decides (and
  // a change of it moves the key epoch, so no cache keeps the old one); this refuses a row that an
  // operator's SQL left disagreeing with the key, rather than let a svc_live_ key act in sandbox.
  if (!record || !key.startsWith(keyPrefixFor(record.env))) {
    throw new AppError(401, 'INVALID_API_KEY', 'The API key is not valid or has been revoked.', {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
  return { keyId: record.id, accountId: record.account_id, env: record.env, name: record.name };
}
