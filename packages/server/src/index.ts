import type { Scope } from './content/db/api-keys-store.js';
import { contentStores } from './content/db/stores/index.js';
import { createContentApiKey as createContentApiKeyIn } from './content/services/api-keys.js';
import type { SqlDatabase } from './platform/db/sql.js';
import type { ServiceDeps } from './platform/service.js';

export { createCommerceApp, openCommerceDatabase } from './commerce/app.js';
export { createCommerceApiKey } from './commerce/services/api-keys.js';
export { type Config, ConfigError, loadConfig, testConfig } from './config.js';
export { type ContentHandle, createContentApp, openContentDatabase } from './content/app.js';
export { type Clock, ManualClock, systemClock } from './platform/clock.js';
export { type Ids, randomIds, sequentialIds } from './platform/ids.js';
export { createLogger, silentLogger } from './platform/logger.js';
export { type Listening, listen, type ServiceDeps, type ServiceHandle } from './platform/service.js';
export { type RunningServices, type ServiceName, type StartOptions, startServices } from './server.js';
export { VERSION } from './version.js';

/**
 * Makes a content API key on a service's database (`handle.db`), as `svc-server keys create`
 * does; the key is returned once and stored hashed. Public, so it takes the database the handle
 * exposes rather than the service's internal store bundle.
 */
export function createContentApiKey(
  db: SqlDatabase,
  deps: Pick<ServiceDeps, 'clock' | 'ids'>,
  input: { name: string; scopes: readonly Scope[] },
) {
  return createContentApiKeyIn(contentStores(db), deps, input);
}
