import type { Config } from '../config.js';
import type { SqlDatabase, TransactionOptions } from '../platform/db/sql.js';
import type { Ids } from '../platform/ids.js';
import { instanceName } from '../platform/instance.js';
import { SILENT_MS } from '../platform/key-cache.js';
import type { Logger } from '../platform/logger.js';
import type { ServiceDeps } from '../platform/service.js';
import { silentInstanceSweep } from '../platform/silent-instances.js';
import { type ContentStores, contentStores } from './db/stores/index.js';
import type { ContentEvents } from './events.js';
import { type MediaContext, type MediaService, mediaService } from './media/index.js';
import { createContentModel } from './model/index.js';
import type { ContentModel } from './model/types.js';
import { createPublisher } from './publishers/index.js';
import type { Publisher } from './publishers/types.js';
import { SandboxClock } from './sandbox-clock.js';
import { type KeyCache, keyCache } from './services/key-cache.js';

/**
 * Who is acting. Routes pass `{ source: 'app' }` (the local person); the MCP server passes
 * `{ source: 'mcp', keyId }`; automations pass `{ source: 'automation', automationId }`.
 * Services record it on runs, approvals and the MCP call log.
 */
export interface Caller {
  source: 'app' | 'api' | 'mcp' | 'automation';
  keyId?: string | null;
  /** The local person for `app` calls; a later sign-in fills in who it really was. */
  personId?: string | null;
  automationId?: string | null;
}

export const APP_CALLER: Caller = { source: 'app', personId: 'person_local' };

/**
 * Everything content services need, built once per app. Every service function takes it
 * as its first argument, so routes, MCP tools, agents and automations share one code path.
 */
export interface ContentContext {
  /** For the platform's own tables (leases, the sandbox clock); services use `stores`. */
  readonly db: SqlDatabase;
  /** Every content store, on the database outside any transaction. */
  readonly stores: ContentStores;
  /**
   * Runs `fn` in one transaction; `tx` is the store bundle bound to it. Only store calls belong
   * inside (see `SqlDatabase.transaction`).
   */
  transaction<T>(fn: (tx: ContentStores) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  readonly config: Config;
  /** Base clock plus the persisted sandbox offset. Use this, never the base clock. */
  readonly clock: SandboxClock;
  readonly ids: Ids;
  readonly logger: Logger;
  readonly model: ContentModel;
  readonly publisher: Publisher;
  /** Monotonic milliseconds for step durations only; never for domain time. */
  readonly stopwatch: () => number;
  /** Who hears post events (post.published, post.metrics_settled) once they leave the outbox. */
  readonly events: ContentEvents;
  /** This instance's name on the leases and claims it takes in the shared database. */
  readonly instanceId: string;
  /**
   * The media library (drafts' attach_media, the MCP media tools, the live publisher). Built
   * before the context, on the same database and sandbox clock, so it is always there.
   */
  readonly media: MediaService;
  /** MCP keys found by hash, trusted while the key epoch's lease is fresh (services/key-cache.ts). */
  readonly keyCache: KeyCache;
  /** This instance's sweep of silent instances' rows: the background pass and every revoke run it. */
  readonly sweepSilent: () => Promise<string[]>;
  /**
   * Aborted when this instance starts to stop (the app's `stopping`): waits on an outside party
   * (X processing a GIF) end then, and the post is left to be tried again.
   */
  readonly stopSignal: AbortSignal;
  /**
   * The length of the leases that guard work done outside a transaction (a token refresh, a
   * media edit; platform/db/lease-lock.ts) when not their own 2 minutes: the seam tests use to
   * see a holder outlive its lease in seconds.
   */
  readonly workLeaseMs?: number;
}

/**
 * Reads the sandbox clock, builds the media service on it, then the context around both. Returns
 * the media module's own context as well: its routes and file server are built on that one, so
 * they share the per-asset locks of `ctx.media`.
 */
export async function createContentContext(
  deps: ServiceDeps & {
    db: SqlDatabase;
    stopwatch?: () => number;
    media?: Pick<MediaContext, 'mediaFetcher' | 'mediaLimits'>;
    stopSignal?: AbortSignal;
    workLeaseMs?: number;
  },
): Promise<{ ctx: ContentContext; mediaCtx: MediaContext }> {
  const clock = await SandboxClock.load(deps.db, deps.clock);
  const mediaCtx: MediaContext = {
    db: deps.db,
    config: deps.config,
    clock,
    ids: deps.ids,
    logger: deps.logger,
    ...deps.media,
    ...(deps.workLeaseMs ? { workLeaseMs: deps.workLeaseMs } : {}),
  };
  const stores = contentStores(deps.db);
  const instanceId = instanceName(deps.ids);
  const stopwatch = deps.stopwatch ?? (() => performance.now());
  const ctx: ContentContext = {
    db: deps.db,
    stores,
    transaction: (fn, opts) => deps.db.transaction((tx) => fn(contentStores(tx)), opts),
    config: deps.config,
    clock,
    ids: deps.ids,
    logger: deps.logger,
    model: createContentModel(deps.config),
    publisher: createPublisher(deps.config, () => ctx),
    stopwatch,
    events: { handlers: [] },
    instanceId,
    media: mediaService(mediaCtx),
    keyCache: keyCache(stores, { instanceId, dialect: deps.db.dialect, logger: deps.logger, stopwatch }),
    sweepSilent: silentInstanceSweep(stores.keyEpoch, { silentMs: SILENT_MS, monotonic: stopwatch }),
    // Never aborted when the caller has no stop of its own (a context built for a tool or a test).
    stopSignal: deps.stopSignal ?? new AbortController().signal,
    ...(deps.workLeaseMs ? { workLeaseMs: deps.workLeaseMs } : {}),
  };
  return { ctx, mediaCtx };
}

export type { Config, Ids, Logger };
