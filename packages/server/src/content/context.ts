import type { Config } from '../config.js';
import type { SqlDatabase } from '../platform/db/sqlite.js';
import type { Ids } from '../platform/ids.js';
import { instanceName } from '../platform/instance.js';
import type { Logger } from '../platform/logger.js';
import type { ServiceDeps } from '../platform/service.js';
import type { Platform } from './domain.js';
import type { ContentEvents } from './events.js';
import { createContentModel } from './model/index.js';
import type { ContentModel } from './model/types.js';
import { createPublisher } from './publishers/index.js';
import type { Publisher } from './publishers/types.js';
import { SandboxClock } from './sandbox-clock.js';

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
 * What the media module gives the rest of the content service. `src/content/media/index.ts`
 * builds it from the context; drafts use it to validate `attach_media`.
 * Kept structural (no import from media/) so both halves compile while built in parallel.
 */
export interface MediaAssetLike {
  id: string;
  brand_id: string;
  kind: string;
  alt_text?: string | null;
  [key: string]: unknown;
}
export interface MediaPort {
  /** `brandId` null means any brand. Returns null (or throws NOT_FOUND) when missing. */
  getAsset(brandId: string | null, assetId: string): Promise<MediaAssetLike | null>;
  listAssets(
    brandId: string,
    opts: { tag?: string; limit?: number; after?: string | null },
  ): Promise<{ assets: MediaAssetLike[]; has_more: boolean; next_after: string | null }>;
  preferredVariant(platform: Platform): string;
  /** The public URL of one crop; null or a throw when the asset has no such variant. */
  variantUrl(asset: MediaAssetLike, variant: string): string | null;
}

/**
 * Everything content services need, built once per app. Every service function takes it
 * as its first argument, so routes, MCP tools, agents and automations share one code path.
 */
export interface ContentContext {
  readonly db: SqlDatabase;
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
  /** Set by app.ts once the media module is wired; null while it is not. */
  media: MediaPort | null;
}

export async function createContentContext(
  deps: ServiceDeps & { db: SqlDatabase; stopwatch?: () => number },
): Promise<ContentContext> {
  const clock = await SandboxClock.load(deps.db, deps.clock);
  const ctx: ContentContext = {
    db: deps.db,
    config: deps.config,
    clock,
    ids: deps.ids,
    logger: deps.logger,
    model: createContentModel(deps.config),
    publisher: createPublisher(deps.config, () => ctx),
    stopwatch: deps.stopwatch ?? (() => performance.now()),
    events: { handlers: [] },
    instanceId: instanceName(deps.ids),
    media: null,
  };
  return ctx;
}

export type { Config, Ids, Logger };
