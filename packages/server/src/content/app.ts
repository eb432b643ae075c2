import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import { backgroundWork } from '../platform/background-work.js';
import { idempotencyStorage } from '../platform/db/idempotency-store.js';
import { leasesStore } from '../platform/db/leases-store.js';
import type { SqlDatabase } from '../platform/db/sql.js';
import { idempotency } from '../platform/http/idempotency.js';
import {
  apiReference,
  createHttpApp,
  finishHttpApp,
  guardRoutes,
  lazyOpenApi,
  localTrustGuard,
  mountRoutes,
  openApiRoute,
} from '../platform/http/index.js';
import type { AnyRoute } from '../platform/http/route.js';
import type { ServiceDeps, ServiceHandle } from '../platform/service.js';
import { type ContentAuth, contentAuthenticators } from './auth.js';
import { type ContentContext, createContentContext } from './context.js';
import { openContentDatabase } from './db/open.js';
import { purgeHandledEvents } from './events.js';
import { createMcpServer } from './mcp/index.js';
import { isMediaUploadRequest, type MediaContext, mediaRoutes, mountMediaFiles } from './media/index.js';
import { contentOpenApiInfo } from './openapi-info.js';
import { agentRoutes } from './routes/agents.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { approvalRoutes } from './routes/approvals.js';
import { automationRoutes } from './routes/automations.js';
import { brandRoutes } from './routes/brands.js';
import { campaignRoutes } from './routes/campaigns.js';
import { channelRoutes } from './routes/channels.js';
import { draftRoutes } from './routes/drafts.js';
import { healthRoutes } from './routes/health.js';
import { ideaRoutes } from './routes/ideas.js';
import { insightRoutes } from './routes/insights.js';
import { postRoutes } from './routes/posts.js';
import { workspaceRoutes } from './routes/workspace.js';
import type { AdvanceResultView } from './schemas/workspace.js';
import { seedDemoWorkspace } from './seed/demo.js';
import { automationEventHandler, purgeOldRunCounts } from './services/automations.js';
import { flushToolCalls } from './services/mcp-call-log.js';
import { sweepCallLogIfDue } from './services/mcp-call-retention.js';
import { recoverInterruptedPublishes } from './services/posts.js';
import { tick } from './services/sandbox.js';
import { webApp } from './web-app.js';

export { openContentDatabase };

/**
 * Every REST route that acts as the workspace's person (auth `person`) is guarded: local
 * requests only (unless SERVICE_PUBLIC_API=all) and never cross-origin. The guard sits on the
 * routes themselves, so it covers exactly what the router matches. What stays public: routes
 * declared `auth: 'public'` (/health, /oauth/{platform}/callback), /mcp (API keys) and /media files.
 */
export const guardContentRoutes = <R extends AnyRoute>(
  routes: readonly R[],
  config: Pick<Config, 'localOnly' | 'content'>,
) => guardRoutes(routes, 'person', personGuard(config));

/** The one guard for what acts as the person: the REST routes and the reference that documents them. */
const personGuard = (config: Pick<Config, 'localOnly' | 'content'>) =>
  localTrustGuard({
    localOnly: config.localOnly,
    publicUrl: config.content.publicUrl,
    message:
      'This endpoint answers only requests made on the machine the server runs on. Set SERVICE_PUBLIC_API=all to expose it behind your own authentication.',
  });

/** How often the background worker publishes due posts, grows metrics and fires automations. */
export const TICK_MS = 30_000;
/**
 * The background pass runs on one instance at a time: it holds this lease while it runs. If that
 * instance dies mid-pass, the lease runs out and the next instance to look takes over. (Each job
 * in the pass is also claimed row by row, so a sandbox clock advance, which runs a pass inside
 * its request, cannot double anything either.)
 */
export const PASS_LEASE = 'content:background-pass';
export const PASS_LEASE_MS = 5 * 60_000;
/**
 * The media orphan sweep runs at most once a day in the whole deployment: the background pass
 * takes this lease for a day and never gives it back, so the next sweep is due when it runs out.
 */
export const MEDIA_SWEEP_LEASE = 'content:media-sweep';
export const MEDIA_SWEEP_EVERY_MS = 24 * 60 * 60_000;

export interface ContentHandle extends ServiceHandle {
  /** The context every content service takes; the MCP server is built on it. */
  ctx: ContentContext;
  /** Settles once start-up work (the demo seed) is done; requests wait for it. */
  ready: Promise<void>;
  /**
   * One pass of the background loop, now: publish what is due, take due metric snapshots (read
   * from the platforms in live mode), fire due automations. For embedding with a ManualClock
   * (tests, examples/live-local): move the clock, then call this instead of waiting for the loop.
   */
  pass(): Promise<Omit<AdvanceResultView, 'now' | 'offset_ms'>>;
  /**
   * What the background loop runs every TICK_MS: a pass plus purges, under the deployment-wide
   * pass lease. False when another instance holds the lease (nothing was run here).
   */
  backgroundPass(): Promise<boolean>;
}

/**
 * Builds the content service (REST under /v1; MCP at /mcp). Listening is the caller's job. Async
 * because it opens and migrates the database (unless given one) and reads the sandbox clock.
 */
export async function createContentApp(
  deps: ServiceDeps & {
    db?: SqlDatabase;
    media?: Pick<MediaContext, 'mediaFetcher' | 'mediaLimits'>;
    /** See ContentContext.workLeaseMs (tests). */
    workLeaseMs?: number;
  },
): Promise<ContentHandle> {
  const db = deps.db ?? (await openContentDatabase(deps.config, (message) => deps.logger.warn(message)));
  // Aborted as the stop begins (`stopping` below): a publish waiting on X's processing gives up.
  const stop = new AbortController();
  const { ctx, mediaCtx } = await createContentContext({ ...deps, db, stopSignal: stop.signal });
  ctx.events.handlers.push(automationEventHandler(ctx));

  const routes = [
    ...healthRoutes,
    ...apiKeyRoutes(ctx),
    ...workspaceRoutes(ctx),
    ...brandRoutes(ctx),
    ...channelRoutes(ctx),
    ...ideaRoutes(ctx),
    ...draftRoutes(ctx),
    ...postRoutes(ctx),
    ...approvalRoutes(ctx),
    ...agentRoutes(ctx),
    ...automationRoutes(ctx),
    ...insightRoutes(ctx),
    ...campaignRoutes(ctx),
    ...mediaRoutes(mediaCtx),
  ];

  const openapi = lazyOpenApi(routes, contentOpenApiInfo(deps.config));

  // Before anything can publish: a publish the last run never finished may be live (unconfirmed).
  // Only attempts whose owner is gone: another instance may be publishing right now.
  const recovered = recoverInterruptedPublishes(ctx).then(
    (posts) => {
      if (posts.length) deps.logger.warn({ posts }, 'publishes interrupted by a stop are now unconfirmed');
    },
    (err: unknown) => deps.logger.error({ err }, 'could not check for interrupted publishes'),
  );
  // Set by close(): a wait for another instance's seed ends (this one's own seed is finished first).
  let stopping = false;
  const ready = recovered.then(() =>
    seedDemoWorkspace(ctx, { stopped: () => stopping }).then(
      () => undefined,
      (err: unknown) => deps.logger.error({ err }, 'demo seed failed; the workspace starts empty'),
    ),
  );
  // Requests wait for the first-start seed so a newcomer never sees a half-built demo brand.
  // The shared sandbox clock is re-read later, where the handler is known (another instance may
  // have moved it): before each route's handler unless the route is declared `readsTime: false`
  // (below), and in /mcp before each tool that reads the time (mcp/call-tool.ts). What else
  // answers (the app's pages, media files, the reference, 404s) never reads the sandbox time.
  // `/health` does not even wait for the seed: it is liveness (the process runs and answers), it
  // reads no data, and a balancer or uptime check polling it should not wait out a first start.
  const waitForReady: RequestHandler = (req, _res, next) => {
    if (req.path === '/health' && (req.method === 'GET' || req.method === 'HEAD')) next();
    else ready.then(() => next(), next);
  };
  /** One background pass if no other instance is running one; false when one was, or a stop has begun. */
  const leases = leasesStore(db);
  const passes = backgroundWork('content background pass', deps.logger);
  const stopped = () => stop.signal.aborted;
  // In this order; each piece of work claims its rows, so what a stop leaves undone is simply
  // still due, for the next pass on any instance.
  const passSteps: (() => Promise<unknown>)[] = [
    () => ctx.clock.sync(db),
    // An instance that died mid-publish on another machine is seen only once its lease runs out.
    () => recoverInterruptedPublishes(ctx),
    () => tick(ctx, { stopped }),
    () => purgeHandledEvents(ctx),
    () => purgeOldRunCounts(ctx),
    () => idempotencyStore.purge(deps.clock.now().toISOString()),
    () => ctx.sweepSilent(),
    async () => {
      if (await leases.take(MEDIA_SWEEP_LEASE, ctx.instanceId, MEDIA_SWEEP_EVERY_MS, db.dialect)) {
        const removed = await ctx.media.sweepOrphans();
        if (removed) deps.logger.info({ removed }, 'media sweep removed orphaned asset folders');
      }
    },
    // Hourly, under its own lease; the MCP call log's entries past SERVICE_MCP_LOG_RETENTION_DAYS.
    () => sweepCallLogIfDue(ctx),
  ];
  const runPass = async () => {
    await ready;
    // A stop has begun (stopping() below): a pass started now would publish during the drain, and
    // the process manager's kill at the end of its grace would leave its posts mid-publish.
    if (stopped()) return false;
    if (!(await leases.take(PASS_LEASE, ctx.instanceId, PASS_LEASE_MS, db.dialect))) return false;
    try {
      // Once the stop begins, the step in flight finishes (a publish is recorded) and no more start.
      for (const step of passSteps) {
        if (stopped()) break;
        await step();
      }
    } finally {
      await leases.release(PASS_LEASE, ctx.instanceId);
    }
    return true;
  };
  // Tracked so close() waits for it: closing the database under a publish leaves it unrecorded.
  const backgroundPass = () => passes.track(runPass());

  const idempotencyStore = idempotencyStorage(db);
  // The same Idempotency-Key rules as the commerce API, so the two clients can retry POSTs alike.
  const idempotent = idempotency<ContentAuth>({
    storage: idempotencyStore,
    clock: deps.clock,
    owner: ctx.instanceId,
    identify: ({ auth }) => {
      const person = auth as ContentAuth['person'] | null;
      return person ? { scope: `person:${person.personId}`, principal: person.personId } : null;
    },
  });
  const app = createHttpApp({
    logger: deps.logger,
    bodyLimitBytes: deps.config.maxBodyBytes,
    early: [
      waitForReady,
      // Before the JSON parser: /mcp answers every failure, a bad body included, in JSON-RPC.
      createMcpServer(ctx, { bodyLimitBytes: deps.config.maxBodyBytes }).router,
    ],
    isMultipartRoute: isMediaUploadRequest,
  });
  mountMediaFiles(app, mediaCtx);
  // The reference documents an API that answers only locally, so it sits behind the same guard.
  app.use(
    apiReference({
      title: 'svc content API reference',
      specPath: '/v1/openapi.json',
      guard: personGuard(deps.config),
    }),
  );
  app.use(
    mountRoutes(guardContentRoutes([...routes, openApiRoute(openapi, 'person')], deps.config), {
      authenticators: contentAuthenticators(),
      wrap: (call, run) =>
        call.route.readsTime === false
          ? idempotent(call, run)
          : ctx.clock.sync(db).then(() => idempotent(call, run)),
      validateResponses: deps.config.validateResponses,
    }),
  );
  app.use(webApp({ guard: personGuard(deps.config) }));
  finishHttpApp(app, deps.logger);

  let timer: NodeJS.Timeout | null = null;
  let ticking = false;
  const stopBackground = () => {
    stop.abort(new Error('svc is stopping'));
    if (timer) clearInterval(timer);
    timer = null;
  };
  // MCP keys are cached only while the key epoch's lease is fresh; renewing it is not background
  // work that one instance does for all (startBackground), every instance serving /mcp needs it.
  ctx.keyCache.start();
  return {
    name: 'content',
    app,
    db,
    // Built on first read (see lazyOpenApi): scripts/gen-types.mjs reads it, a start does not.
    get openapi() {
      return openapi();
    },
    ctx,
    ready,
    pass: () => ready.then(() => ctx.clock.sync(db)).then(() => tick(ctx)),
    backgroundPass,
    startBackground() {
      if (timer || stopped()) return;
      timer = setInterval(() => {
        if (ticking) return;
        ticking = true;
        backgroundPass()
          .catch((err: unknown) => deps.logger.error({ err }, 'content background tick failed'))
          .finally(() => {
            ticking = false;
          });
      }, TICK_MS);
      timer.unref();
    },
    /**
     * The stop has begun (before the HTTP server drains): no new background pass starts, and the
     * one running claims no further post and starts no further step; the publish in flight
     * finishes and is recorded, unless it waits on X's processing, which gives up at once.
     */
    stopping: stopBackground,
    async close() {
      stopBackground();
      stopping = true;
      await ready;
      // Before the database closes: a pass in flight records what it published. Bounded by the
      // step it is in, as it takes nothing new (stopping above): for a publish, its platform calls,
      // each under the platform timeout (30 s).
      await passes.settled();
      // A stopped instance is not waited for by revokes on the others.
      await ctx.keyCache.stop();
      await ctx.stores.keyEpoch
        .forget(ctx.instanceId)
        .catch((err: unknown) =>
          deps.logger.warn({ err }, 'could not remove this instance from key_epoch_instances'),
        );
      // The MCP call log's last batch goes in before the database closes.
      await flushToolCalls(db);
      await db.close();
    },
  };
}
