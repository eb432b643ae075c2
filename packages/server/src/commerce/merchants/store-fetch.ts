import type { Config } from '../../config.js';
import { type PublicFetchInit, publicFetch } from '../../platform/net/public-url.js';

/** How every store request reaches the network: the options the SSRF guard takes from the config. */
export interface StoreFetchOptions {
  /**
   * SERVICE_STORES_ALLOW_PRIVATE: loopback, private addresses and plain http are let through
   * (local development and tests only). Off, stores are https on public addresses only.
   */
  allowPrivate: boolean;
}

export const storeFetchOptions = (config: Pick<Config, 'storesAllowPrivate'>): StoreFetchOptions => ({
  allowPrivate: config.storesAllowPrivate,
});

export type StoreFetchInit = Omit<PublicFetchInit, 'allowPrivate' | 'requireHttps'>;

/**
 * fetch for every request to a store (product pages, UCP endpoints): the platform's SSRF guard
 * (`publicFetch`: https only, DNS checked and pinned at connect time, no redirects followed) with
 * the one exception SERVICE_STORES_ALLOW_PRIVATE allows.
 */
export function storeFetch(ctx: { config: Pick<Config, 'storesAllowPrivate'> }) {
  const options = storeFetchOptions(ctx.config);
  return (url: string, init: StoreFetchInit): Promise<Response> =>
    publicFetch(url, { ...init, ...options, requireHttps: true });
}
