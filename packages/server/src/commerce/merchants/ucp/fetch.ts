import type { CommerceContext } from '../../context.js';
import { storeFetch } from '../store-fetch.js';

export interface UcpFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
}

/**
 * The one way the UCP adapter reaches a store: `storeFetch`, the platform's SSRF guard (DNS
 * checked and pinned at connect time, no redirects followed, a size cap and a deadline), https
 * only unless SERVICE_STORES_ALLOW_PRIVATE lets private addresses and plain http through.
 */
export const ucpFetch = (deps: Pick<CommerceContext, 'config'>, url: string, init: UcpFetchInit) =>
  storeFetch(deps)(url, init);
