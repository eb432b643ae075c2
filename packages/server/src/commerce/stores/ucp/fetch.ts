import type { Config } from '../../../config.js';
import { publicFetch } from '../../../platform/net/public-url.js';

/**
 * Whether store requests may reach loopback, private addresses and plain http
 * (SERVICE_STORES_ALLOW_PRIVATE; development and tests only).
 *
 * TODO(lead, at merge): replace this file's body with long-tail's `storeFetch(ctx)` from
 * commerce/stores/store-fetch.ts, which owns the setting. Until then the flag is read from
 * `config.storesAllowPrivate` when a config carries it.
 */
const allowPrivate = (config: Config): boolean =>
  (config as Config & { storesAllowPrivate?: boolean }).storesAllowPrivate === true;

export interface UcpFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
}

/**
 * The one way the UCP adapter reaches a store: through the platform's SSRF guard (DNS checked and
 * pinned at connect time, no redirects followed, a size cap and a deadline), https only unless
 * private addresses are allowed.
 */
export function ucpFetch(deps: { config: Config }, url: string, init: UcpFetchInit): Promise<Response> {
  const open = allowPrivate(deps.config);
  return publicFetch(url, { ...init, allowPrivate: open, requireHttps: !open });
}
