import { lastUsedIsStale, sha256Hex } from '../../platform/api-key-hash.js';
import { notFound } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import type { ServiceDeps } from '../../platform/service.js';
import type { ContentApiKeyRow, Scope } from '../db/api-keys-store.js';
import type { ContentStores } from '../db/stores/index.js';

export const SCOPES = ['read', 'write'] as const satisfies readonly Scope[];

export interface ApiKeyView {
  id: string;
  name: string;
  scopes: Scope[];
  /** The first 12 characters, for recognising a key in a list. */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
}

const view = (row: ContentApiKeyRow): ApiKeyView => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes.split(',').filter(Boolean) as Scope[],
  prefix: row.prefix,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
});

/** `svc_` plus 32 base62 characters; the full key is returned once and never stored. */
export async function createContentApiKey(
  stores: ContentStores,
  deps: Pick<ServiceDeps, 'clock' | 'ids'>,
  input: { name: string; scopes: readonly Scope[] },
): Promise<{ key: string; apiKey: ApiKeyView }> {
  const key = `svc_${randomBase62(32)}`;
  const scopes = SCOPES.filter((s) => input.scopes.includes(s));
  const row = {
    id: deps.ids.make('key'),
    name: input.name,
    scopes: scopes.join(','),
    prefix: key.slice(0, 12),
    created_at: deps.clock.now().toISOString(),
  };
  await stores.apiKeys.insert({ ...row, key_hash: sha256Hex(key) });
  return { key, apiKey: view({ ...row, last_used_at: null, revoked_at: null }) };
}

export async function listContentApiKeys(stores: ContentStores): Promise<ApiKeyView[]> {
  return (await stores.apiKeys.listActive()).map(view);
}

/** Revoking twice is harmless and says so (`already_revoked`); an id that never existed is a 404. */
export async function revokeContentApiKeyOnce(
  stores: ContentStores,
  deps: Pick<ServiceDeps, 'clock'>,
  id: string,
): Promise<{ apiKey: ApiKeyView; revoked_at: string; already_revoked: boolean }> {
  const store = stores.apiKeys;
  const row = await store.find(id);
  if (!row) throw notFound('API key', id);
  const now = deps.clock.now().toISOString();
  const revokedNow = await store.revoke(id, now);
  const revokedAt = revokedNow ? now : ((await store.find(id))?.revoked_at ?? now);
  return { apiKey: view(row), revoked_at: revokedAt, already_revoked: !revokedNow };
}

/** The REST form: a key that is already revoked is gone from the API's point of view (404). */
export async function revokeContentApiKey(
  stores: ContentStores,
  deps: Pick<ServiceDeps, 'clock'>,
  id: string,
): Promise<void> {
  const outcome = await revokeContentApiKeyOnce(stores, deps, id);
  if (outcome.already_revoked) throw notFound('API key', id);
}

const KEY_SHAPE = /^svc_[0-9A-Za-z]{32}$/;

/** Looks a presented key up by hash and records its use; `null` when unknown, malformed or revoked. */
export async function findContentApiKey(
  stores: ContentStores,
  deps: Pick<ServiceDeps, 'clock'>,
  key: string,
): Promise<ApiKeyView | null> {
  if (!KEY_SHAPE.test(key)) return null;
  const store = stores.apiKeys;
  const row = await store.findActiveByHash(sha256Hex(key));
  if (!row) return null;
  const now = deps.clock.now();
  if (!lastUsedIsStale(row.last_used_at, now)) return view(row);
  await store.touch(row.id, now.toISOString());
  return view({ ...row, last_used_at: now.toISOString() });
}
