import type { SqlDatabase } from '../platform/db/sql.js';
import type { ServiceDeps } from '../platform/service.js';
import type { CommerceEnv } from './db/api-keys-store.js';
import type { CommerceKeyCache } from './services/api-keys.js';

/** What every commerce service function gets: storage, time, ids, settings, and the outbox signal. */
export interface CommerceContext extends ServiceDeps {
  db: SqlDatabase;
  /** Called after a transaction that wrote events has committed, so delivery starts at once. */
  eventsWritten(): void;
  /** This instance's name on the leases it takes in the shared database. */
  instanceId: string;
  /**
   * API keys found by hash, trusted while the key epoch's lease is fresh (platform/key-cache.ts);
   * a revoke drops it and waits for the other instances' (services/api-keys.ts).
   */
  keyCache?: CommerceKeyCache;
  /** This instance's sweep of silent instances' rows: its own beat and every revoke run it. */
  sweepSilent?: () => Promise<string[]>;
}

/** An API key's account and environment: the unit of isolation. */
export interface Tenant {
  accountId: string;
  env: CommerceEnv;
}

/** A user-scoped request: the tenant, the user, and the rules their token was approved with. */
export interface Actor extends Tenant {
  userId: string;
  /** Where hosted pages are served, for URLs handed back to the application. */
  baseUrl: string;
}
