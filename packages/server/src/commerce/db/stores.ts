import { idempotencyWrites } from '../../platform/db/idempotency-store.js';
import { keyEpochStore } from '../../platform/db/key-epoch-store.js';
import { leasesStore } from '../../platform/db/leases-store.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import { getOrBuild } from '../../platform/get-or-build.js';
import { apiKeysStore } from './api-keys-store.js';
import { approvalsStore } from './approvals-store.js';
import { catalogStore } from './catalog-store.js';
import { checkoutsStore } from './checkouts-store.js';
import { connectionsStore } from './connections-store.js';
import { offersStore } from './offers-store.js';
import { ordersStore } from './orders-store.js';
import { passkeysStore } from './passkeys-store.js';
import { usersStore } from './users-store.js';
import { webhooksStore } from './webhooks-store.js';

function buildStores(db: SqlExecutor) {
  return {
    apiKeys: apiKeysStore(db),
    approvals: approvalsStore(db),
    catalog: catalogStore(db),
    checkouts: checkoutsStore(db),
    connections: connectionsStore(db),
    idempotency: idempotencyWrites(db),
    keyEpoch: keyEpochStore(db),
    leases: leasesStore(db),
    offers: offersStore(db),
    orders: ordersStore(db),
    passkeys: passkeysStore(db),
    users: usersStore(db),
    webhooks: webhooksStore(db),
  };
}
export type CommerceStores = ReturnType<typeof buildStores>;

/**
 * The bundle of each executor, built once: a store is only its SQL bound to the executor it was
 * given (no state of its own), so the same executor always gets the same stores. Keyed by the
 * executor object itself, so another database, or another transaction's executor on PostgreSQL,
 * can never be handed this one's stores; weakly, so a transaction's bundle goes with it.
 * Building all twelve was most of a checkout GET's store work, twice a request.
 */
const built = new WeakMap<SqlExecutor, CommerceStores>();

/** Every commerce store over one executor: the database, or a transaction. */
export function commerceStores(db: SqlExecutor): CommerceStores {
  return getOrBuild(built, db, buildStores);
}
