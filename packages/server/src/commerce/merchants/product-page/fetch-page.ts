import type { lookup as dnsLookup } from 'node:dns';
import { AppError } from '../../../platform/errors.js';
import { BodyTooLargeError, fetchErrorCode, publicFetch } from '../../../platform/net/public-url.js';

export interface FetchPageDeps {
  /** SERVICE_STORES_ALLOW_PRIVATE: loopback, private addresses and plain http (development and tests only). */
  allowPrivate: boolean;
  /** One deadline for the whole fetch, redirects included. */
  timeoutMs?: number;
  /** Pages larger than this fail while streaming. */
  maxBytes?: number;
  maxRedirects?: number;
  /** Injectable DNS for tests. */
  lookup?: typeof dnsLookup;
}

export const PAGE_TIMEOUT_MS = 10_000;
export const PAGE_MAX_BYTES = 3 * 1024 * 1024;
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export type FetchPageFailure =
  | 'URL_NOT_ALLOWED'
  | 'TIMEOUT'
  | 'PAGE_TOO_LARGE'
  | 'HTTP_STATUS'
  | 'TOO_MANY_REDIRECTS'
  | 'FETCH_FAILED';

export type FetchPageResult =
  | { ok: true; url: string; status: number; contentType: string; body: string }
  | { ok: false; reason: FetchPageFailure; message: string; status?: number };

function failure(err: unknown, url: string, timeoutMs: number): FetchPageResult {
  if (err instanceof AppError) return { ok: false, reason: 'URL_NOT_ALLOWED', message: err.message };
  if (err instanceof BodyTooLargeError) return { ok: false, reason: 'PAGE_TOO_LARGE', message: err.message };
  const name = (err as Error | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { ok: false, reason: 'TIMEOUT', message: `Fetching ${url} took longer than ${timeoutMs} ms.` };
  }
  const code = fetchErrorCode(err);
  if (code === 'EBLOCKEDADDRESS') {
    return {
      ok: false,
      reason: 'URL_NOT_ALLOWED',
      message: `${new URL(url).hostname} resolves only to private or reserved addresses.`,
    };
  }
  return { ok: false, reason: 'FETCH_FAILED', message: `Could not fetch ${url}${code ? ` (${code})` : ''}.` };
}

/**
 * GETs a store's product page (or Shopify's `/products/<handle>.js`) through the platform's SSRF
 * guard: DNS checked and pinned at connect time, a size cap enforced while streaming, one
 * deadline. Redirects are followed by hand, at most `maxRedirects`, each hop checked again, so a
 * public page cannot bounce us to 169.254.169.254. The body is decoded as UTF-8.
 */
export async function fetchProductPage(rawUrl: string, deps: FetchPageDeps): Promise<FetchPageResult> {
  const timeoutMs = deps.timeoutMs ?? PAGE_TIMEOUT_MS;
  const maxRedirects = deps.maxRedirects ?? MAX_REDIRECTS;
  const signal = AbortSignal.timeout(timeoutMs);
  let url = rawUrl;
  try {
    for (let hop = 0; ; hop++) {
      const res = await publicFetch(url, {
        allowPrivate: deps.allowPrivate,
        requireHttps: true,
        timeoutMs,
        maxBytes: deps.maxBytes ?? PAGE_MAX_BYTES,
        signal,
        headers: { accept: 'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.5' },
        ...(deps.lookup ? { lookup: deps.lookup } : {}),
      });
      const location = res.headers.get('location');
      if (REDIRECTS.has(res.status) && location) {
        await res.body?.cancel().catch(() => undefined);
        if (hop >= maxRedirects) {
          return {
            ok: false,
            reason: 'TOO_MANY_REDIRECTS',
            message: `${rawUrl} redirected more than ${maxRedirects} times.`,
          };
        }
        url = new URL(location, url).href;
        continue;
      }
      if (res.status < 200 || res.status >= 300) {
        await res.body?.cancel().catch(() => undefined);
        return {
          ok: false,
          reason: 'HTTP_STATUS',
          status: res.status,
          message: `${url} answered ${res.status}.`,
        };
      }
      const body = await res.text();
      return { ok: true, url, status: res.status, contentType: res.headers.get('content-type') ?? '', body };
    }
  } catch (err) {
    return failure(err, url, timeoutMs);
  }
}
