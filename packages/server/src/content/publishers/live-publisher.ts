import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LeaseUnavailable } from '../../platform/db/lease-lock.js';
import { AppError } from '../../platform/errors.js';
import { trimTrailingSlashes } from '../../platform/trim-end.js';
import type { ContentContext } from '../context.js';
import { assetDir, mediaRoot } from '../media/files.js';
import { accessTokenFor, refreshAccessToken } from '../services/channel-credentials.js';
import { type PlatformProvider, ProviderError, type ProviderMedia } from './provider.js';
import { providerFor } from './registry.js';
import { PublishError, type Publisher, type PublishRequest, type PublishResult } from './types.js';
import { type UploadedMediaCache, uploadedMediaCache } from './uploaded-media.js';

/** When a 429 says nothing about when to come back. */
const DEFAULT_RATE_LIMIT_WAIT_MS = 15 * 60_000;

/**
 * The longest a publish-now request waits on X's processing of a GIF (the background loop waits
 * 60 s). Past it the answer is `scheduled` with a retry a minute later, and that retry checks the
 * same upload (uploaded-media.ts) rather than sending the GIF again: a person is never held for a
 * minute, and a slow GIF still goes out. X's GIFs usually take a few seconds.
 */
export const IN_REQUEST_PROCESSING_WAIT_MS = 15_000;

/** Providers that honour `alreadyPublished` (send only the parts after those already out). */
const CONTINUES_THREADS = new Set(['x', 'threads']);

/** Platforms that fetch the image from its public URL instead of taking the bytes. */
const FETCHES_BY_URL = new Set(['instagram', 'threads']);

/**
 * What a provider's failure means for the post. Anything that is not a ProviderError out of
 * `publish` (a bug, an unexpected throw) counts as unknown: the request may have gone out.
 */
function classify(ctx: ContentContext, err: unknown, earlier: string[]): PublishError {
  if (err instanceof PublishError) return err;
  // The channel's token refresh is held elsewhere (a slow refresh, an instance stalled inside its
  // lease) or was lost to another holder twice, or this instance is stopping while it waits: a
  // lease says nothing about the post, and nothing more went out, so a later pass tries again.
  if (err instanceof LeaseUnavailable)
    return new PublishError('retry', err.code, err.why, { publishedIds: earlier });
  if (err instanceof AppError)
    return new PublishError('failed', err.code, err.message, { publishedIds: earlier });
  if (!(err instanceof ProviderError))
    return new PublishError(
      'unconfirmed',
      'PUBLISH_UNCONFIRMED',
      `Publishing stopped without an answer (${err instanceof Error ? err.message : String(err)}): the post may or may not be live.`,
      { publishedIds: earlier },
    );
  const publishedIds = err.publishedIds.length ? err.publishedIds : earlier;
  switch (err.kind) {
    case 'rate_limited':
      return new PublishError('retry', 'PLATFORM_RATE_LIMITED', err.message, {
        retryAt: err.retryAt ?? new Date(ctx.clock.now().getTime() + DEFAULT_RATE_LIMIT_WAIT_MS),
        publishedIds,
      });
    case 'unavailable':
      return new PublishError('retry', 'PLATFORM_UNAVAILABLE', err.message, { publishedIds });
    case 'outcome_unknown':
      return new PublishError('unconfirmed', 'PUBLISH_UNCONFIRMED', err.message, { publishedIds });
    case 'invalid':
      return new PublishError('failed', 'POST_INVALID_FOR_PLATFORM', err.message, { publishedIds });
    case 'forbidden':
      return new PublishError('failed', 'PLATFORM_FORBIDDEN', err.message, { publishedIds });
    default:
      // `rejected`, and a 401 that a fresh token did not cure.
      return new PublishError('failed', 'PLATFORM_REJECTED', err.message, { publishedIds });
  }
}

/** The post's images from the media library: bytes for X and LinkedIn, public URLs for the others. */
async function readMedia(
  ctx: ContentContext,
  req: PublishRequest,
  uploaded: UploadedMediaCache,
): Promise<ProviderMedia[]> {
  const out: ProviderMedia[] = [];
  const base = trimTrailingSlashes(ctx.config.content.publicUrl ?? '');
  for (const m of req.media) {
    const rec = await ctx.stores.media.get(m.assetId);
    const file = rec?.variants[m.variant];
    if (!rec || !file)
      throw new PublishError(
        'failed',
        'MEDIA_UNAVAILABLE',
        `Media asset '${m.assetId}' (${m.variant}) is no longer in the media library; attach another image.`,
      );
    const url = `${base}/media/${rec.id}/${file.file}`;
    // SERVICE_MEDIA_ALLOW_PRIVATE (local fakes only) lets a plain http loopback URL through, as
    // the provider's own check does; a missing CONTENT_PUBLIC_URL is refused either way.
    const fetchable = ctx.config.mediaAllowPrivate ? /^https?:\/\// : /^https:\/\//;
    if (FETCHES_BY_URL.has(req.platform) && !fetchable.test(url))
      throw new PublishError(
        'failed',
        'MEDIA_NOT_PUBLIC',
        `${req.platform} fetches each image from its URL, so CONTENT_PUBLIC_URL must be a public https address (it is ${base ? `'${base}'` : 'not set'}).`,
      );
    const data = await readFile(join(assetDir(mediaRoot(ctx.config), rec.id), file.file));
    const key = { postId: req.postId, platform: req.platform, assetId: rec.id, file: file.file };
    const uploadedId = uploaded.get(key, ctx.clock.now().getTime());
    out.push({
      mimeType: file.mime,
      data,
      url,
      ...(uploadedId ? { uploadedId } : {}),
      onUploaded: (id, expiresAfterSecs) =>
        uploaded.remember(key, id, ctx.clock.now().getTime() + expiresAfterSecs * 1000),
    });
  }
  return out;
}

/**
 * Live mode: publishes through the platform's provider with the channel's stored token. The
 * platform is called once; only a 401 (nothing was posted) is tried again, once, after a
 * refresh. Every other failure is a PublishError saying what the caller must do.
 */
export function livePublisher(getCtx: () => ContentContext): Publisher {
  const uploaded = uploadedMediaCache();
  const provider = (
    ctx: ContentContext,
    platform: PublishRequest['platform'],
    inRequest = false,
  ): PlatformProvider =>
    providerFor(ctx.config, platform, {
      now: () => ctx.clock.now(),
      wait: (ms) => ctx.clock.wait(ms, ctx.stopSignal),
      stopSignal: ctx.stopSignal,
      ...(ctx.config.platformTimeoutMs ? { timeoutMs: ctx.config.platformTimeoutMs } : {}),
      ...(inRequest ? { processingWaitMs: IN_REQUEST_PROCESSING_WAIT_MS } : {}),
    });

  const withToken = async <T>(
    ctx: ContentContext,
    channelId: string,
    call: (token: string) => Promise<T>,
  ): Promise<T> => {
    const token = await accessTokenFor(ctx, channelId);
    try {
      return await call(token);
    } catch (err) {
      if (!(err instanceof ProviderError && err.kind === 'token_expired')) throw err;
      // Named, so a refresh another instance made meanwhile is used rather than repeated.
      return call(await refreshAccessToken(ctx, channelId, token));
    }
  };

  return {
    kind: 'live',
    assertCanPublish(platform) {
      provider(getCtx(), platform);
    },

    async publish(req): Promise<PublishResult> {
      const ctx = getCtx();
      let earlier = req.alreadyPublished;
      try {
        if (earlier.length && !CONTINUES_THREADS.has(req.platform))
          throw new PublishError(
            'failed',
            'THREAD_PARTLY_PUBLISHED',
            `${earlier.length} part(s) of this thread are already live (${earlier.join(', ')}), and this build cannot send only the rest on ${req.platform}; post the rest by hand.`,
            { publishedIds: earlier },
          );
        const p = provider(ctx, req.platform, req.inRequest);
        const media = earlier.length ? [] : await readMedia(ctx, req, uploaded);
        // The channel's handle is the account's username (set at connect and reconnect), so the
        // provider builds the permalink from it instead of asking the platform on every publish.
        const username = req.channelHandle.replace(/^@/, '') || undefined;
        const result = await withToken(ctx, req.channelId, (accessToken) =>
          p
            .publish({
              accessToken,
              parts: req.parts,
              media,
              alreadyPublished: earlier,
              ...(username ? { username } : {}),
            })
            .catch((err: unknown) => {
              // A 401 on a later part: the parts before it are out; the retry sends only the rest.
              if (err instanceof ProviderError && err.publishedIds.length) earlier = err.publishedIds;
              throw err;
            }),
        );
        uploaded.forgetPost(req.postId);
        return result;
      } catch (err) {
        const failure = classify(ctx, err, earlier);
        // Only a retry can use the ids again; a post that failed or may be live is done with them.
        if (failure.outcome !== 'retry') uploaded.forgetPost(req.postId);
        throw failure;
      }
    },

    async metrics(ref) {
      const ctx = getCtx();
      const p = provider(ctx, ref.platform);
      return withToken(ctx, ref.channelId, (accessToken) =>
        p.metrics({ accessToken, externalId: ref.externalId }),
      );
    },

    async replies(ref) {
      const ctx = getCtx();
      const p = provider(ctx, ref.platform);
      if (!p.replies) return null;
      const read = p.replies.bind(p);
      const accountId = (await ctx.stores.channels.get(ref.channelId))?.platform_user_id ?? undefined;
      return withToken(ctx, ref.channelId, (accessToken) =>
        read({ accessToken, externalId: ref.externalId, ...(accountId ? { accountId } : {}) }),
      );
    },

    async exists(ref) {
      const ctx = getCtx();
      const p = provider(ctx, ref.platform);
      try {
        const s = await withToken(ctx, ref.channelId, (accessToken) =>
          p.status({ accessToken, externalId: ref.externalId }),
        );
        return s.exists;
      } catch (err) {
        if (!(err instanceof ProviderError)) throw err;
        // Not an id this platform uses, or one it refuses to look up: it has no such post of ours.
        if (err.kind === 'invalid' || err.kind === 'rejected') return false;
        throw new AppError(
          503,
          'PLATFORM_UNAVAILABLE',
          `Could not ask ${ref.platform} about post '${ref.externalId}' (${err.message}); nothing was changed, try again later.`,
        );
      }
    },
  };
}
