import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { AppError } from '../../platform/errors.js';
import { BodyTooLargeError, fetchErrorCode, publicFetch } from '../../platform/net/public-url.js';
import { fetchFailed, mediaTooLarge, urlNotAllowed } from './errors.js';
import { writeCapped } from './files.js';
import type { MediaLimits } from './limits.js';

/**
 * How from-url reaches the network. It must not follow redirects (we re-check each hop) and
 * must refuse private addresses; the default is the platform's SSRF-guarded `publicFetch`.
 * Tests inject one with `allowPrivate: true` to reach a local server, or a fake DNS lookup.
 */
export type MediaFetcher = (
  url: string,
  init: { timeoutMs: number; maxBytes: number; signal: AbortSignal; headers: Record<string, string> },
) => Promise<Response>;

export const publicMediaFetcher: MediaFetcher = (url, init) =>
  publicFetch(url, { ...init, allowPrivate: false });

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function fetchError(err: unknown, url: string, limits: MediaLimits): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof BodyTooLargeError) return mediaTooLarge(limits.videoMaxBytes, 'file');
  const name = (err as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return fetchFailed(`Fetching ${url} took longer than ${limits.fetchTimeoutMs / 1000} s.`, err);
  }
  const code = fetchErrorCode(err);
  if (code === 'EBLOCKEDADDRESS')
    return urlNotAllowed(`${new URL(url).hostname} resolves only to private or reserved addresses.`, err);
  return fetchFailed(`Could not fetch ${url}${code ? ` (${code})` : ''}.`, err);
}

/**
 * Downloads `rawUrl` into `path`, following at most `maxRedirects` redirects by hand so every
 * hop goes through the fetcher's checks again (a public URL may redirect to 169.254.169.254).
 * The size cap is enforced while streaming; the whole import shares one deadline.
 */
export async function downloadTo(
  fetcher: MediaFetcher,
  rawUrl: string,
  path: string,
  limits: MediaLimits,
): Promise<{ bytes: number; finalUrl: string }> {
  const signal = AbortSignal.timeout(limits.fetchTimeoutMs);
  const started = performance.now();
  let url = rawUrl;
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetcher(url, {
        // Each hop gets what is left of the one deadline.
        timeoutMs: Math.max(1, Math.floor(limits.fetchTimeoutMs - (performance.now() - started))),
        maxBytes: limits.videoMaxBytes,
        signal,
        headers: { accept: 'image/*, video/*;q=0.9', 'user-agent': 'svc-media-import/1' },
      });
    } catch (err) {
      const mapped = fetchError(err, url, limits);
      if (hop > 0 && mapped.code === 'URL_NOT_ALLOWED') {
        throw urlNotAllowed(`The URL redirected to ${url}, which is not allowed: ${mapped.message}`, err);
      }
      throw mapped;
    }
    if (REDIRECTS.has(res.status)) {
      await res.body?.cancel();
      const location = res.headers.get('location');
      if (!location) throw fetchFailed(`${url} answered ${res.status} without a Location.`);
      if (hop >= limits.maxRedirects)
        throw fetchFailed(`${rawUrl} redirected more than ${limits.maxRedirects} times.`);
      url = new URL(location, url).toString();
      continue;
    }
    if (res.status < 200 || res.status > 299 || !res.body) {
      await res.body?.cancel();
      throw fetchFailed(`${url} answered ${res.status}; expected 200 with the file.`);
    }
    try {
      const { bytes } = await writeCapped(
        Readable.fromWeb(res.body as unknown as WebReadableStream<Uint8Array>),
        path,
        limits,
      );
      return { bytes, finalUrl: url };
    } catch (err) {
      throw fetchError(err, url, limits);
    }
  }
}
