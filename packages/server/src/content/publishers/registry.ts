import { type Config, platformVar } from '../../config.js';
import { AppError } from '../../platform/errors.js';
import type { Platform } from '../domain.js';
import type { PlatformProvider } from './provider.js';
import { createXProvider, type XClientOptions } from './x/index.js';

/** What every provider factory takes (X's options; the others add optional fields of their own). */
type ProviderFactory = (opts: XClientOptions) => PlatformProvider;

const factories: Partial<Record<Platform, ProviderFactory>> = {
  x: createXProvider,
  // linkedin, instagram, threads: registered once live-providers lands.
};

/** 501: live mode cannot connect or publish on this platform until its OAuth app is configured. */
export const oauthNotConfigured = (platform: Platform) => {
  const vars = `${platformVar(platform, 'CLIENT_ID')} and ${platformVar(platform, 'CLIENT_SECRET')}`;
  return new AppError(
    501,
    'OAUTH_NOT_CONFIGURED',
    factories[platform]
      ? `Live mode has no OAuth app for ${platform}: set ${vars} to the app registered with ${platform} (see docs/content/live.md), then restart. Run with SERVICE_MODE=sandbox to use sandbox channels.`
      : `This build cannot connect ${platform} accounts in live mode yet, so ${vars} are not used. Run with SERVICE_MODE=sandbox to use sandbox channels.`,
  );
};

/**
 * The platform's provider, built from SERVICE_<P>_CLIENT_ID/SECRET/API_URL/AUTH_URL. Throws
 * 501 OAUTH_NOT_CONFIGURED, naming the variables, when the platform has no OAuth app.
 * `now` is the caller's clock, so token expiry times follow the service clock.
 */
export function providerFor(
  config: Pick<Config, 'platforms'>,
  platform: Platform,
  deps: { now?: () => Date; fetch?: typeof fetch; timeoutMs?: number } = {},
): PlatformProvider {
  const settings = config.platforms[platform];
  const factory = factories[platform];
  if (!settings.client || !factory) throw oauthNotConfigured(platform);
  return factory({
    clientId: settings.client.id,
    clientSecret: settings.client.secret,
    apiUrl: settings.apiUrl,
    authUrl: settings.authUrl,
    ...deps,
  });
}
