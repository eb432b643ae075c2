import { type ClientOptions, firstMessage, type ProviderCall, providerHttp, retryAfter } from '../http.js';

/** X's defaults: `https://api.x.com` (SERVICE_X_API_URL), `https://x.com/i/oauth2/authorize` (SERVICE_X_AUTH_URL). */
export interface XClientOptions extends ClientOptions {
  /** How the provider waits between media status checks: the service clock's `wait` (tests move it). */
  wait?: (ms: number) => Promise<void>;
  /** Aborted when the service stops; ends the processing wait, even on a wait that ignores it. */
  stopSignal?: AbortSignal;
  /** The longest total wait for X to process a GIF before the publish gives up; 60 s by default. */
  processingWaitMs?: number;
}

export type XCall = Omit<ProviderCall, 'method'> & { method: 'GET' | 'POST' };

/** `x-rate-limit-reset` (epoch seconds, X's own) first, then `retry-after` (seconds or an HTTP date). */
function retryAt(res: Response, now: Date): Date | null {
  const reset = Number(res.headers.get('x-rate-limit-reset'));
  if (res.headers.has('x-rate-limit-reset') && Number.isFinite(reset)) return new Date(reset * 1000);
  return retryAfter(res, now);
}

/** X answers errors as `{code,message}`, a problem (`title`/`detail`), or OAuth's `{error,error_description}`. */
function describe(body: unknown): string | undefined {
  const b = (body ?? {}) as Record<string, unknown>;
  const first = Array.isArray(b.errors) ? (b.errors[0] as Record<string, unknown> | undefined) : undefined;
  return firstMessage(b.detail, b.message, b.error_description, b.error, first?.message, first?.detail);
}

export function xHttp(opts: XClientOptions) {
  const call = providerHttp({
    platform: 'x',
    label: 'X',
    apiUrl: opts.apiUrl ?? 'https://api.x.com',
    timeoutMs: opts.timeoutMs,
    fetch: opts.fetch,
    now: opts.now,
    describe,
    retryAt,
  });
  return async <T>(c: XCall): Promise<T> => (await call<T>(c)).body;
}

export type XHttp = ReturnType<typeof xHttp>;
