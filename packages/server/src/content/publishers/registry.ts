// TEMPORARY STUB (live-publish): live-connect owns this file; replaced by theirs at `git merge live-connect`.
import type { Config } from '../../config.js';
import { AppError } from '../../platform/errors.js';
import type { Platform } from '../domain.js';
import type { PlatformProvider } from './provider.js';
import { createXProvider } from './x/index.js';

export function providerFor(
  _config: Config,
  platform: Platform,
  opts: { now?: () => Date } = {},
): PlatformProvider {
  const id = process.env.SERVICE_X_CLIENT_ID;
  if (platform !== 'x' || !id)
    throw new AppError(501, 'OAUTH_NOT_CONFIGURED', `No OAuth client for '${platform}'.`);
  return createXProvider({
    clientId: id,
    clientSecret: process.env.SERVICE_X_CLIENT_SECRET ?? '',
    apiUrl: process.env.SERVICE_X_API_URL ?? 'https://api.x.com',
    authUrl: process.env.SERVICE_X_AUTH_URL ?? 'https://x.com/i/oauth2/authorize',
    timeoutMs: Number(process.env.SERVICE_X_TIMEOUT_MS ?? 30_000),
    ...(opts.now ? { now: opts.now } : {}),
  });
}
