import { type Config, platformVar } from '../../config.js';
import { AppError } from '../../platform/errors.js';
import type { Platform } from '../domain.js';
import { createInstagramProvider } from './instagram/index.js';
import { createLinkedInProvider } from './linkedin/index.js';
import type { PlatformProvider } from './provider.js';
import { createThreadsProvider } from './threads/index.js';
import { createXProvider, type XClientOptions } from './x/index.js';

/**
 * What every provider factory takes (X's options; the others add optional fields of their own).
 * `allowPrivateMediaUrls` matters only to the platforms that fetch images by URL (Instagram,
 * Threads): with SERVICE_MEDIA_ALLOW_PRIVATE they may be handed loopback URLs (local fakes).
 */
type ProviderFactory = (opts: XClientOptions & { allowPrivateMediaUrls?: boolean }) => PlatformProvider;

const factories: Record<Platform, ProviderFactory> = {
  x: createXProvider,
  linkedin: createLinkedInProvider,
  instagram: createInstagramProvider,
  threads: createThreadsProvider,
};

/** 501: live mode cannot connect or publish on this platform until its OAuth app is configured. */
export const oauthNotConfigured = (platform: Platform) => {
  const vars = `${platformVar(platform, 'CLIENT_ID')} and ${platformVar(platform, 'CLIENT_SECRET')}`;
  return new AppError(
    501,
    'OAUTH_NOT_CONFIGURED',
    `Live mode has no OAuth app for ${platform}: set ${vars} to the app registered with ${platform} (see docs/content/live.md), then restart. Run with SERVICE_MODE=sandbox to use sandbox channels.`,
  );
};

/**
 * The platform's provider, built from SERVICE_<P>_CLIENT_ID/SECRET/API_URL/AUTH_URL. Throws
 * 501 OAUTH_NOT_CONFIGURED, naming the variables, when the platform has no OAuth app.
 * `now` is the caller's clock, so token expiry times follow the service clock; `wait` is its wait
 * (X polls a GIF's processing on it).
 */
export function providerFor(
  config: Pick<Config, 'platforms' | 'mediaAllowPrivate'>,
  platform: Platform,
  deps: {
    now?: () => Date;
    wait?: (ms: number) => Promise<void>;
    /** Aborted when the service stops: X's processing wait ends then (`wait` rejects). */
    stopSignal?: AbortSignal;
    fetch?: typeof fetch;
    timeoutMs?: number;
    /** The longest wait on the platform's media processing (X); its default when left out. */
    processingWaitMs?: number;
  } = {},
): PlatformProvider {
  const settings = config.platforms[platform];
  if (!settings.client) throw oauthNotConfigured(platform);
  return factories[platform]({
    clientId: settings.client.id,
    clientSecret: settings.client.secret,
    apiUrl: settings.apiUrl,
    authUrl: settings.authUrl,
    allowPrivateMediaUrls: config.mediaAllowPrivate,
    ...deps,
  });
}
