import { APIUserAbortError } from './errors.js';

export const INITIAL_RETRY_DELAY_MS = 500;
export const MAX_RETRY_DELAY_MS = 8_000;
/**
 * Longest Retry-After we are willing to wait inside one call. A server asking for more
 * is better answered by surfacing the error (its headers carry Retry-After) than by
 * retrying early, which would only spend the retries on more refusals.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

export const IDEMPOTENCY_KEY_IN_USE = 'IDEMPOTENCY_KEY_IN_USE';

/**
 * 409 is retried only for IDEMPOTENCY_KEY_IN_USE: the first request with the same key
 * is still running, and once it finishes the repeat gets its stored answer. Any other
 * 409 is a real conflict that a retry cannot fix, like every other 4xx except 429.
 */
export function isRetryableStatus(status: number, code: string | null): boolean {
  if (status === 409) return code === IDEMPOTENCY_KEY_IN_USE;
  return status === 429 || status >= 500;
}

/**
 * Exponential back-off, 0.5 s · 2^retry capped at 8 s, minus up to 25% jitter so that
 * many clients failing together don't retry together.
 */
export function backoffDelay(retry: number, random: () => number = Math.random): number {
  const base = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** retry, MAX_RETRY_DELAY_MS);
  return Math.round(base * (1 - random() * 0.25));
}

/**
 * The server's requested wait in ms, from `retry-after-ms`, or `Retry-After` as seconds
 * or an HTTP date. `undefined` when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const header = headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (0-based), or `null` to stop now because
 * the server asked for a wait longer than MAX_RETRY_AFTER_MS.
 */
export function retryDelay(retry: number, headers: Headers | undefined, random: () => number): number | null {
  const requested = parseRetryAfter(headers);
  if (requested === undefined) return backoffDelay(retry, random);
  return requested <= MAX_RETRY_AFTER_MS ? requested : null;
}

export function abortError(signal: AbortSignal): APIUserAbortError {
  return new APIUserAbortError(undefined, { cause: signal.reason });
}

/** A timer that the signal can cut short; the default sleep for back-off and polling. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Settles with `promise`, or rejects as soon as `signal` aborts. Used around every await
 * that involves someone else's code (fetch, body reads, injected sleeps) so an abort is
 * honoured even when that code ignores the signal.
 */
export function raceAbort<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onAbort: () => unknown,
): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(onAbort());
  }
  return new Promise<T>((resolve, reject) => {
    const listener = () => {
      promise.catch(() => {});
      reject(onAbort());
    };
    signal.addEventListener('abort', listener, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', listener);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', listener);
        reject(error);
      },
    );
  });
}
