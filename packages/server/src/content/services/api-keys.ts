import { sha256Hex } from '../../platform/api-key-hash.js';
import type { Dialect } from '../../platform/db/sql.js';
import { notFound } from '../../platform/errors.js';
import { getOrBuild } from '../../platform/get-or-build.js';
import { randomBase62 } from '../../platform/ids.js';
import {
  awaitKeyEpochSeen,
  cachedFreshKey,
  findCachedKey,
  type RevokeWait,
} from '../../platform/key-cache.js';
import type { ServiceDeps } from '../../platform/service.js';
import type { ContentApiKeyRow, Scope } from '../db/api-keys-store.js';
import type { ContentStores } from '../db/stores/index.js';
import type { KeyCache } from './key-cache.js';

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

/** The stores and the transaction a revoke needs (the app's context, or the CLI's database). */
export interface KeyStores {
  stores: ContentStores;
  /** Which SQL the key epoch's heartbeats are judged in (the database's own clock). */
  db: { dialect: Dialect };
  transaction<T>(fn: (tx: ContentStores) => Promise<T>): Promise<T>;
}

/** What a revoke waits with: this instance's key cache, if it serves MCP. */
export type RevokeDeps = Pick<ServiceDeps, 'clock'> & RevokeWait & { keyCache?: KeyCache };

/**
 * Revoking twice is harmless and says so (`already_revoked`); an id that never existed is a 404.
 * Returns only once no instance on the database accepts the key any more: the revoke moves the
 * key epoch in its own transaction (a trigger, migration 21), and every instance's key cache
 * drops itself on seeing it (platform/key-cache.ts).
 */
export async function revokeContentApiKeyOnce(
  keys: KeyStores,
  deps: RevokeDeps,
  id: string,
): Promise<{ apiKey: ApiKeyView; revoked_at: string; already_revoked: boolean }> {
  const store = keys.stores.apiKeys;
  const row = await store.find(id);
  if (!row) throw notFound('API key', id);
  const now = deps.clock.now().toISOString();
  const epoch = await keys.transaction(async (tx) =>
    (await tx.apiKeys.revoke(id, now)) ? tx.keyEpoch.read() : null,
  );
  if (epoch !== null) {
    await awaitKeyEpochSeen({ keyEpoch: keys.stores.keyEpoch }, deps, epoch, id);
  }
  const revokedAt = epoch !== null ? now : ((await store.find(id))?.revoked_at ?? now);
  return { apiKey: view(row), revoked_at: revokedAt, already_revoked: epoch === null };
}

/** The REST form: a key that is already revoked is gone from the API's point of view (404). */
export async function revokeContentApiKey(keys: KeyStores, deps: RevokeDeps, id: string): Promise<void> {
  const outcome = await revokeContentApiKeyOnce(keys, deps, id);
  if (outcome.already_revoked) throw notFound('API key', id);
}

const KEY_SHAPE = /^svc_[0-9A-Za-z]{32}$/;

/** The store as findCachedKey reads it, built once per store rather than two closures a call. */
const lookups = new WeakMap<ContentStores['apiKeys'], Parameters<typeof findCachedKey<ApiKeyView>>[2]>();
const lookupOf = (keys: ContentStores['apiKeys']) =>
  getOrBuild(lookups, keys, () => ({
    findActiveByHash: async (hash: string) => {
      const row = await keys.findActiveByHash(hash);
      return row ? view(row) : null;
    },
    touch: (id: string, at: string) => keys.touch(id, at),
  }));

/**
 * Looks a presented key up by hash and records its use; `null` when unknown, malformed or revoked.
 * With a key cache (MCP), a key found before is answered from it while its lease is fresh; only
 * keys that exist are cached, so a made-up key still costs a lookup (and finds nothing).
 *
 * Answers without a promise when nothing needs the database: a malformed key, or a key this
 * instance's cache holds (under a fresh lease) whose last-used stamp is within the minute, as for
 * nearly every call of a busy key (`cachedFreshKey`). A caller awaits only a promise.
 */
export function findContentApiKey(
  stores: ContentStores,
  deps: Pick<ServiceDeps, 'clock'> & { keyCache?: KeyCache },
  key: string,
): ApiKeyView | null | Promise<ApiKeyView | null> {
  if (!KEY_SHAPE.test(key)) return null;
  const hash = sha256Hex(key);
  const now = deps.clock.now();
  return (
    cachedFreshKey(deps.keyCache, hash, now) ??
    findCachedKey(deps.keyCache, hash, lookupOf(stores.apiKeys), now)
  );
}
