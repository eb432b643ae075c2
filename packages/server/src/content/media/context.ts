import type { Config } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { SqlDatabase } from '../../platform/db/sql.js';
import type { Ids } from '../../platform/ids.js';
import type { Logger } from '../../platform/logger.js';
import type { MediaFetcher } from './fetch-url.js';
import type { MediaLimits } from './limits.js';

/**
 * What the media module needs. `ContentContext` satisfies it as is; the two optional fields
 * are the seams tests use (a fetcher that may reach a local server, smaller caps).
 */
export interface MediaContext {
  readonly db: SqlDatabase;
  readonly config: Config;
  /** `realNow`: the clock without the sandbox offset (leases run on it); `now` when absent. */
  readonly clock: Clock & { realNow?(): Date };
  readonly ids: Ids;
  readonly logger: Logger;
  /** The name this instance takes leases under (ContentContext has one; else one is made). */
  readonly instanceId?: string;
  /** Defaults to `publicMediaFetcher` (publicFetch with allowPrivate: false). */
  readonly mediaFetcher?: MediaFetcher;
  readonly mediaLimits?: Partial<MediaLimits>;
  /** The per-asset lease's length when not ASSET_LEASE_MS (locks.ts): tests shorten it. */
  readonly workLeaseMs?: number;
}
