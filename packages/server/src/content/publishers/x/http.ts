import { ProviderError } from '../provider.js';

export interface XClientOptions {
  /** `https://api.x.com` by default (SERVICE_X_API_URL). */
  apiUrl?: string;
  /** `https://x.com/i/oauth2/authorize` by default (SERVICE_X_AUTH_URL). */
  authUrl?: string;
  clientId: string;
  /** Confidential clients authenticate with HTTP Basic; public clients send client_id instead. */
  clientSecret?: string;
  /** Per request; 30 s by default. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => Date;
}

export interface XCall {
  method: 'GET' | 'POST';
  path: string;
  token?: string;
  json?: unknown;
  form?: Record<string, string>;
  basic?: string;
  /** True for a call that publishes: no answer then means the post may be live. */
  publishes?: boolean;
}

/** `x-rate-limit-reset` (epoch seconds, X's own) first, then `retry-after` (seconds or an HTTP date). */
function retryAt(res: Response, now: Date): Date | null {
  const reset = Number(res.headers.get('x-rate-limit-reset'));
  if (res.headers.has('x-rate-limit-reset') && Number.isFinite(reset)) return new Date(reset * 1000);
  const after = res.headers.get('retry-after');
  if (!after) return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return new Date(now.getTime() + seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : new Date(date);
}

/** X answers errors as `{code,message}`, a problem (`title`/`detail`), or OAuth's `{error,error_description}`. */
function describe(body: unknown, fallback: string): string {
  const b = (body ?? {}) as Record<string, unknown>;
  const first = Array.isArray(b.errors) ? (b.errors[0] as Record<string, unknown> | undefined) : undefined;
  const parts = [b.detail, b.message, b.error_description, b.error, first?.message, first?.detail];
  return parts.find((p): p is string => typeof p === 'string' && p.length > 0) ?? fallback;
}

export function xHttp(opts: XClientOptions) {
  const apiUrl = (opts.apiUrl ?? 'https://api.x.com').replace(/\/+$/, '');
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const doFetch = opts.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  const now = opts.now ?? (() => new Date());

  return async function call<T>(c: XCall): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | undefined;
    if (c.token) headers.authorization = `Bearer ${c.token}`;
    if (c.basic) headers.authorization = `Basic ${c.basic}`;
    if (c.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(c.json);
    } else if (c.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(c.form).toString();
    }
    const what = `${c.method} ${c.path.split('?')[0]}`;
    let res: Response;
    let text: string;
    try {
      res = await doFetch(`${apiUrl}${c.path}`, {
        method: c.method,
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const why =
        (err as Error).name === 'TimeoutError'
          ? `no answer within ${timeoutMs / 1000} s`
          : `no connection (${(err as Error).message})`;
      if (c.publishes) {
        throw new ProviderError(
          'x',
          'outcome_unknown',
          `X gave no answer to ${what} (${why}): the post may or may not be live. Check the account before publishing again.`,
        );
      }
      throw new ProviderError('x', 'unavailable', `X gave no answer to ${what}: ${why}.`);
    }
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // A proxy page or plain text: described by its status below.
    }
    if (res.ok) return parsed as T;

    const message = `X answered ${res.status} to ${what}: ${describe(parsed, res.statusText || 'no reason given')}`;
    const status = res.status;
    if (status === 401) throw new ProviderError('x', 'token_expired', message, { status });
    if (status === 403) throw new ProviderError('x', 'forbidden', message, { status });
    if (status === 429) {
      throw new ProviderError('x', 'rate_limited', message, { status, retryAt: retryAt(res, now()) });
    }
    if (status >= 500) {
      // A 5xx to a publish may come after X stored the post: as unknown as no answer at all.
      throw new ProviderError('x', c.publishes ? 'outcome_unknown' : 'unavailable', message, { status });
    }
    throw new ProviderError('x', 'rejected', message, { status });
  };
}

export type XHttp = ReturnType<typeof xHttp>;
