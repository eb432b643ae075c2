import type { lookup as dnsLookup } from 'node:dns';
import { backgroundWork } from '../platform/background-work.js';
import { idempotencyStorage } from '../platform/db/idempotency-store.js';
import type { SqlDatabase } from '../platform/db/sql.js';
import { idempotency } from '../platform/http/idempotency.js';
import {
  apiReference,
  createHttpApp,
  finishHttpApp,
  guardRoutes,
  lazyOpenApi,
  mountRoutes,
  notUnder,
  openApiRoute,
} from '../platform/http/index.js';
import { instanceName } from '../platform/instance.js';
import { keyCache, SILENT_MS, SWEEP_EVERY_MS } from '../platform/key-cache.js';
import type { ServiceDeps, ServiceHandle } from '../platform/service.js';
import { silentInstanceSweep } from '../platform/silent-instances.js';
import { type CommerceAuth, commerceAuthenticators } from './auth.js';
import type { CommerceContext } from './context.js';
import type { ApiKeyRecord } from './db/api-keys-store.js';
import { openCommerceDatabase } from './db/open.js';
import { commerceStores } from './db/stores.js';
import { commerceOpenApiInfo } from './openapi-info.js';
import { dashboardRouter } from './pages/dashboard-router.js';
import { hostedRouter } from './pages/hosted-router.js';
import { approvalRoutes } from './routes/approvals.js';
import { checkoutRoutes } from './routes/checkouts.js';
import { dashboardGuard, dashboardRoutes } from './routes/dashboard.js';
import { healthRoutes } from './routes/health.js';
import { merchantRoutes } from './routes/merchants.js';
import { offerRoutes } from './routes/offers.js';
import { orderRoutes } from './routes/orders.js';
import { sandboxRoutes } from './routes/sandbox.js';
import { ucpProfileRoutes } from './routes/ucp-profile.js';
import { webhookEndpointRoutes } from './routes/webhook-endpoints.js';
import type { CommerceKeyCache } from './services/api-keys.js';
import { pollStoreHandOffs, recoverConfirming } from './services/checkouts.js';
import { createDispatcher, type Dispatcher } from './webhooks/dispatcher.js';

export { openCommerceDatabase };

export interface CommerceServiceHandle extends ServiceHandle {
  /** The webhook dispatcher; tests call `runDue()` after moving the clock. */
  dispatcher: Dispatcher;
  /**
   * One confirm-recovery pass now (what the background loop runs every minute): finishes every
   * checkout stuck in `confirming` since `olderThanMs` ago whose placement lease nobody holds.
   */
  recover(olderThanMs?: number): Promise<void>;
  /** This instance's cache of API keys; tests renew its lease and count its renewals. */
  keyCache: CommerceKeyCache;
  /**
   * The purge the background loop runs every 10 minutes (old idempotency records), if no instance
   * has run it this period: false when one did. Silent instances' heartbeat rows are swept apart,
   * on every instance every SWEEP_EVERY_MS and before each revoke (`ctx.sweepSilent`): under this
   * lease a crashed instance's row stayed up to ~30 min, and each revoke meanwhile waited for it.
   */
  purge(): Promise<boolean>;
}

export interface CommerceDeps extends ServiceDeps {
  db?: SqlDatabase;
  /** Jitter source for webhook retries. */
  random?: () => number;
  /** DNS used for webhook deliveries; injectable so tests can make a name resolve to loopback. */
  lookup?: typeof dnsLookup;
  /** How often the dispatcher looks for due deliveries. */
  webhookPollMs?: number;
  /** How often checkouts stuck in `confirming` are looked for after the start-up pass; tests shorten it. */
  recoverEveryMs?: number;
}

const PURGE_EVERY_MS = 10 * 60_000;
/**
 * Held for PURGE_EVERY_MS by the instance that purged and never given back, so one instance of a
 * deployment purges a period and the next purge is due when the lease runs out (as content's
 * media sweep). The purge is safe to overlap (it deletes only rows past a cutoff), but every
 * instance repeating the same DELETE every period is load on the shared database for nothing.
 */
export const PURGE_LEASE = 'commerce:purge';
const API_PREFIX = '/v1/';
/** A confirm that has not finished after this long is taken as interrupted (its store call is long over). */
const RECOVER_AFTER_MS = 60_000;

/**
 * Builds the commerce API. Listening is the caller's job, so tests and embedders can mount it
 * anywhere. Async because it opens and migrates the database unless given one.
 */
export async function createCommerceApp(deps: CommerceDeps): Promise<CommerceServiceHandle> {
  const db = deps.db ?? (await openCommerceDatabase(deps.config, (message) => deps.logger.warn(message)));
  if (deps.config.webhookAllowPrivate) {
    deps.logger.warn(
      'SERVICE_WEBHOOK_ALLOW_PRIVATE is on: webhook endpoints may point at localhost, private addresses and plain http. Use it for local development only.',
    );
  }
  if (deps.config.storesAllowPrivate) {
    deps.logger.warn(
      'SERVICE_STORES_ALLOW_PRIVATE is on: store requests may reach localhost, private addresses and plain http. Use it for local development and tests only.',
    );
  }
  const instanceId = instanceName(deps.ids);
  const dispatcher = createDispatcher({
    owner: instanceId,
    db,
    clock: deps.clock,
    logger: deps.logger,
    random: deps.random ?? Math.random,
    allowPrivate: deps.config.webhookAllowPrivate,
    lookup: deps.lookup,
    ...(deps.webhookPollMs ? { pollMs: deps.webhookPollMs } : {}),
  });
  const keyEpoch = commerceStores(db).keyEpoch;
  const stopwatch = () => performance.now();
  const keys = keyCache<ApiKeyRecord>(keyEpoch, {
    instanceId,
    dialect: db.dialect,
    logger: deps.logger,
    stopwatch,
    what: 'commerce API keys',
  });
  // On every instance, on its own beat and before each revoke, as content's: no lease (each
  // instance judges by its own monotonic clock, and its DELETEs are conditional on the stamp).
  const sweepSilentInstances = silentInstanceSweep(keyEpoch, { silentMs: SILENT_MS, monotonic: stopwatch });
  const ctx: CommerceContext = {
    config: deps.config,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    db,
    eventsWritten: () => dispatcher.nudge(),
    instanceId,
    keyCache: keys,
    sweepSilent: sweepSilentInstances,
  };

  const routes = [
    ...healthRoutes,
    ...ucpProfileRoutes,
    ...merchantRoutes(ctx),
    ...approvalRoutes(ctx),
    ...offerRoutes(ctx),
    ...checkoutRoutes(ctx),
    ...orderRoutes(ctx),
    ...webhookEndpointRoutes(ctx),
    ...sandboxRoutes(ctx),
  ];

  const openapi = lazyOpenApi(routes, commerceOpenApiInfo(deps.config));

  const dashboard = { ...ctx, dispatcher };
  // The API authenticates every request with keys and can be exposed. The dashboard cannot:
  // its guard is mounted on its page router and on each of its JSON routes (auth 'local').
  const guard = dashboardGuard();
  const app = createHttpApp({
    logger: deps.logger,
    bodyLimitBytes: deps.config.maxBodyBytes,
    early: [hostedRouter(ctx), dashboardRouter(dashboard, guard)],
    // The pages live under /hosted, /dashboard and /docs; the API under /v1 passes them by.
    apiPrefix: API_PREFIX,
  });
  app.use(
    notUnder(API_PREFIX, apiReference({ title: 'svc commerce API reference', specPath: '/v1/openapi.json' })),
  );
  const idempotencyStore = idempotencyStorage(db);
  const apiRoutes = [...routes, openApiRoute(openapi, 'none'), ...dashboardRoutes(dashboard)];
  app.use(
    mountRoutes(guardRoutes(apiRoutes, 'local', guard), {
      authenticators: commerceAuthenticators(db, { ...deps, keyCache: keys }),
      wrap: idempotency<CommerceAuth>({
        storage: idempotencyStore,
        clock: deps.clock,
        owner: instanceId,
        identify: ({ auth }) => {
          const a = auth as { keyId?: string; env?: string; userId?: string } | null;
          return a?.keyId ? { scope: `${a.keyId}:${a.env}`, principal: a.userId ?? '-' } : null;
        },
      }),
      validateResponses: deps.config.validateResponses,
    }),
  );
  finishHttpApp(app, deps.logger);
  // Keys are cached only while the key epoch's lease is fresh; every instance that authenticates
  // requests renews its own, so it starts with the app, not with the background work.
  keys.start();

  const leases = commerceStores(db).leases;
  const purgeDue = async () => {
    if (!(await leases.take(PURGE_LEASE, instanceId, PURGE_EVERY_MS, db.dialect))) return false;
    // Each on its own: one failing does not keep the other from running this period.
    await idempotencyStore
      .purge(deps.clock.now().toISOString())
      .catch((err) => deps.logger.error({ err }, 'idempotency purge failed'));
    return true;
  };
  let purge: NodeJS.Timeout | null = null;
  let sweep: NodeJS.Timeout | null = null;
  let recover: NodeJS.Timeout | null = null;
  const stopTimers = () => {
    for (const t of [purge, sweep, recover]) if (t) clearInterval(t);
    purge = sweep = recover = null;
  };
  // Set as the stop begins: a recovery pass running then asks the store about no further checkout.
  let stopped = false;
  const isStopped = () => stopped;
  const passes = backgroundWork('commerce background passes', deps.logger);
  // Tracked so close() waits for it: closing the database between the store's answer and its
  // record left a placed order's checkout `confirming` until the next instance's recovery.
  const recoverStuck = (olderThanMs: number) =>
    passes.track(
      recoverConfirming(ctx, new Date(deps.clock.now().getTime() - olderThanMs), { stopped: isStopped })
        // Hand-offs to the buyer at a UCP store are polled on the same beat.
        .then(() => pollStoreHandOffs(ctx, { stopped: isStopped }))
        .catch((err) => deps.logger.error({ err }, 'confirm recovery failed')),
    );
  return {
    name: 'commerce',
    app,
    db,
    // Built on first read (see lazyOpenApi): scripts/gen-types.mjs reads it, a start does not.
    get openapi() {
      return openapi();
    },
    dispatcher,
    keyCache: keys,
    recover: async (olderThanMs = 0) => {
      await recoverStuck(olderThanMs);
    },
    purge: purgeDue,
    startBackground() {
      if (stopped) return;
      dispatcher.start();
      purge ??= setInterval(() => {
        passes.track(purgeDue()).catch((err) => deps.logger.error({ err }, 'could not take the purge lease'));
      }, PURGE_EVERY_MS);
      purge.unref();
      sweep ??= setInterval(() => {
        passes
          .track(sweepSilentInstances())
          .catch((err) => deps.logger.error({ err }, 'the sweep of silent instances failed'));
      }, SWEEP_EVERY_MS);
      sweep.unref();
      // At start-up nothing of this process is placing yet; another instance's placements are
      // under their lease and left alone, so every confirming checkout nobody holds is stuck.
      if (!recover) void recoverStuck(0);
      recover ??= setInterval(
        () => void recoverStuck(RECOVER_AFTER_MS),
        deps.recoverEveryMs ?? RECOVER_AFTER_MS,
      );
      recover.unref();
    },
    /**
     * The stop has begun (before the HTTP server drains, which lasts as long as the slowest
     * request: up to ~35 s for a checkout on a slow UCP store): take no new background work. A
     * delivery claimed during the drain lengthened the stop by up to its attempt's 10 s, and one
     * in flight when the process manager killed the process stayed leased to it for LEASE_MS, out
     * of every other instance's reach. Nothing in flight is cut short (docs/operations.md).
     */
    stopping() {
      stopped = true;
      stopTimers();
      dispatcher.stopClaiming();
    },
    async close() {
      stopped = true;
      stopTimers();
      await dispatcher.stop();
      // A recovery pass in flight records the store's answer before the database closes. Bounded
      // by the checkout it is on, as it takes no other: its store calls, each under 15 s.
      await passes.settled();
      // A stopped instance is not waited for by revokes on the others.
      await keys.stop();
      await keyEpoch
        .forget(instanceId)
        .catch((err: unknown) =>
          deps.logger.warn({ err }, 'could not remove this instance from key_epoch_instances'),
        );
      await db.close();
    },
  };
}
