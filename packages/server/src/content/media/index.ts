import type { Express } from 'express';
import { getOrBuild } from '../../platform/get-or-build.js';
import type { MediaContext } from './context.js';
import { mediaRoot } from './files.js';
import { DEFAULT_MEDIA_LIMITS } from './limits.js';
import { mediaRoutes as buildRoutes } from './routes.js';
import { mountMediaFiles as mountFiles } from './serve.js';
import { createMediaService, type MediaService } from './service.js';

export type { MediaContext } from './context.js';
export { type MediaFetcher, publicMediaFetcher } from './fetch-url.js';
export { DEFAULT_MEDIA_LIMITS, type MediaLimits } from './limits.js';
export { CROPS, type CropName, PLATFORM_MEDIA, VARIANT_NAMES, type VariantName } from './platforms.js';
export { MediaAsset, MediaFit } from './schemas.js';
export { createMediaService, type MediaListPage, type MediaPatch, type MediaService } from './service.js';
export { isMediaUploadRequest } from './upload.js';

/**
 * One service per context, so routes, the /media file server, drafts' attach_media and the MCP
 * list_media tool share one instance of it. Safe per process: the service keeps no state of its
 * own (its per-asset locks are leases in the database, see locks.ts).
 */
const services = new WeakMap<MediaContext, MediaService>();
export function mediaService(ctx: MediaContext): MediaService {
  return getOrBuild(services, ctx, createMediaService);
}

/** The REST routes of the Media group (auth `person`). */
export function mediaRoutes(ctx: MediaContext) {
  const limits = { ...DEFAULT_MEDIA_LIMITS, ...ctx.mediaLimits };
  return buildRoutes(mediaService(ctx), { root: mediaRoot(ctx.config), limits });
}

/** Public file serving under /media; mount before the app's not-found handler. */
export function mountMediaFiles(app: Express, ctx: MediaContext): void {
  mountFiles(app, mediaService(ctx));
}
