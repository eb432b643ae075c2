import type { Dialect } from '../../platform/db/sql.js';
import { type KeyCache as PlatformKeyCache, keyCache as platformKeyCache } from '../../platform/key-cache.js';
import type { Logger } from '../../platform/logger.js';
import type { ContentStores } from '../db/stores/index.js';
import type { ApiKeyView } from './api-keys.js';

/** MCP keys found by hash, cached per instance under a lease on the key epoch (platform/key-cache.ts). */
export type KeyCache = PlatformKeyCache<ApiKeyView>;

export const keyCache = (
  stores: ContentStores,
  deps: { instanceId: string; dialect: Dialect; logger: Logger; stopwatch: () => number },
): KeyCache => platformKeyCache<ApiKeyView>(stores.keyEpoch, { ...deps, what: 'MCP keys' });
