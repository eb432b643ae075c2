import { BodyTooLargeError, readCappedText } from '../../platform/net/capped-body.js';
import {
  JsonTooDeepError,
  OUTSIDE_JSON_MAX_DEPTH,
  parseOutsideJsonSteps,
} from '../../platform/sliced/json.js';
import { readSliced } from '../../platform/sliced/work.js';
import { trimTrailingSlashes } from '../../platform/trim-end.js';
import type { Platform } from '../domain.js';
import { ANSWER_MAX_BYTES, TOKEN_ANSWER_MAX_BYTES } from './answer-caps.js';
import { ProviderError, type ProviderErrorKind } from './provider.js';

/**
 * The one HTTP call every provider makes: bearer or Basic auth, a JSON, form or raw body, a timeout,
 * and the platform's answer turned into a `ProviderError` whose kind tells the caller what to do.
 * The platform-specific parts (how errors read, where the retry time is, error codes that mean
 * more than their HTTP status) come in as hooks.
 *
 * The answer is outside input, read with bounds: at most the platform's `ANSWER_MAX_BYTES`, or
 * `TOKEN_ANSWER_MAX_BYTES` from a token endpoint (answer-caps.ts; a larger declared length is refused unread and a longer stream is cut off,
 * closing the connection), and JSON over 64 KiB is parsed in slices with a turn of the event loop
 * between them and at most 64 levels of nesting (platform/sliced/json.ts), so no platform can
 * fill the heap or hold the loop both services share.
 */

export interface ProviderCall {
  method: 'GET' | 'POST' | 'PUT';
  /** A path under the API URL, or an absolute URL the platform handed out (an upload URL). */
  path: string;
  token?: string;
  json?: unknown;
  form?: Record<string, string>;
  raw?: { contentType: string; data: Uint8Array };
  basic?: string;
  headers?: Record<string, string>;
  /** True for a call that publishes: no answer then means the post may be live. */
  publishes?: boolean;
  /** A call to the platform's token endpoint: its answer is held to TOKEN_ANSWER_MAX_BYTES. */
  tokenEndpoint?: true;
}

export interface ProviderAnswer<T> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ProviderHttpOptions {
  platform: Platform;
  /** The platform's name in messages: "X", "LinkedIn". */
  label: string;
  apiUrl: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => Date;
  /** The platform's own error text, from its error body. */
  describe?: (body: unknown) => string | undefined;
  /** When to try again after a rate limit; `Retry-After` by default. */
  retryAt?: (res: Response, now: Date) => Date | null;
  /** An error code in the body that means more than the status (Meta answers 400 to an expired token). */
  classify?: (status: number, body: unknown) => ProviderErrorKind | undefined;
  /** The most of one answer that is read; the platform's `ANSWER_MAX_BYTES` by default. */
  maxAnswerBytes?: number;
}

/** `Retry-After` in seconds or as an HTTP date (RFC 9110 §10.2.3). */
export function retryAfter(res: Response, now: Date): Date | null {
  const after = res.headers.get('retry-after');
  if (!after) return null;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return new Date(now.getTime() + seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : new Date(date);
}

/** The first non-empty string among the usual error fields. */
export function firstMessage(...candidates: unknown[]): string | undefined {
  return candidates.find((p): p is string => typeof p === 'string' && p.length > 0);
}

function encode(c: ProviderCall): { headers: Record<string, string>; body?: string | Uint8Array } {
  const headers: Record<string, string> = { accept: 'application/json', ...c.headers };
  if (c.token) headers.authorization = `Bearer ${c.token}`;
  if (c.basic) headers.authorization = `Basic ${c.basic}`;
  if (c.json !== undefined) {
    headers['content-type'] = 'application/json';
    return { headers, body: JSON.stringify(c.json) };
  }
  if (c.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    return { headers, body: new URLSearchParams(c.form).toString() };
  }
  if (c.raw) {
    headers['content-type'] = c.raw.contentType;
    return { headers, body: c.raw.data };
  }
  return { headers };
}

export function providerHttp(opts: ProviderHttpOptions) {
  const apiUrl = trimTrailingSlashes(opts.apiUrl);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const doFetch = opts.fetch ?? ((...a: Parameters<typeof fetch>) => fetch(...a));
  const now = opts.now ?? (() => new Date());
  const { platform, label } = opts;

  const apiMaxBytes = opts.maxAnswerBytes ?? ANSWER_MAX_BYTES[platform];

  /**
   * No usable answer, in a sentence for each case: a publish may have gone out all the same, so it
   * is unknown; any other call changed nothing and can be tried again later.
   */
  const noAnswer = (c: ProviderCall, forPublish: string, forOther: string, status?: number) =>
    c.publishes
      ? new ProviderError(
          platform,
          'outcome_unknown',
          `${forPublish}: the post may or may not be live. Check the account before publishing again.`,
          { status },
        )
      : new ProviderError(platform, 'unavailable', `${forOther}.`, { status });

  return async function call<T>(c: ProviderCall): Promise<ProviderAnswer<T>> {
    const absolute = /^https?:\/\//i.test(c.path);
    const what = `${c.method} ${absolute ? new URL(c.path).pathname : c.path.split('?')[0]}`;
    const { headers, body } = encode(c);
    const maxBytes = c.tokenEndpoint ? TOKEN_ANSWER_MAX_BYTES : apiMaxBytes;
    const source = c.tokenEndpoint ? `${label}'s token endpoint` : label;
    const gone = (err: unknown) => {
      const why =
        (err as Error).name === 'TimeoutError'
          ? `no answer within ${timeoutMs / 1000} s`
          : `no connection (${(err as Error).message})`;
      return noAnswer(
        c,
        `${label} gave no answer to ${what} (${why})`,
        `${label} gave no answer to ${what}: ${why}`,
      );
    };
    // A success we cannot read is no answer: the platform, or whatever answers at its URL, is broken.
    const unreadable = (status: number, how: string) => {
      const said = `${label} answered ${status} to ${what} ${how}, so the answer was not read`;
      return noAnswer(c, said, said, status);
    };
    let res: Response;
    let text: string | null;
    try {
      res = await doFetch(absolute ? c.path : `${apiUrl}${c.path}`, {
        method: c.method,
        headers,
        body: body as BodyInit | undefined,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw gone(err);
    }
    try {
      text = await readCappedText(res, maxBytes);
    } catch (err) {
      if (!(err instanceof BodyTooLargeError)) throw gone(err);
      text = null;
    }
    const status = res.status;
    const tooLarge = `with more than ${maxBytes} bytes (the most read from ${source})`;
    if (text === null && res.ok) throw unreadable(status, tooLarge);

    let parsed: unknown = null;
    try {
      parsed = text ? await readSliced(parseOutsideJsonSteps(text)) : null;
    } catch (err) {
      if (err instanceof JsonTooDeepError && res.ok)
        throw unreadable(status, `with JSON nested more than ${OUTSIDE_JSON_MAX_DEPTH} levels deep`);
      // A proxy page or plain text: described by its status below.
    }
    if (res.ok) return { status, headers: res.headers, body: parsed as T };

    const reason =
      text === null
        ? `an answer ${tooLarge}, not read`
        : (opts.describe?.(parsed) ?? (res.statusText || 'no reason given'));
    const message = `${label} answered ${status} to ${what}: ${reason}`;
    let kind: ProviderErrorKind = opts.classify?.(status, parsed) ?? kindOf(status);
    // A 5xx to a publish may come after the platform stored the post: as unknown as no answer at all.
    if (kind === 'unavailable' && c.publishes) kind = 'outcome_unknown';
    const retryAt = kind === 'rate_limited' ? (opts.retryAt ?? retryAfter)(res, now()) : null;
    throw new ProviderError(platform, kind, message, { status, retryAt });
  };
}

function kindOf(status: number): ProviderErrorKind {
  if (status === 401) return 'token_expired';
  if (status === 403) return 'forbidden';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  return 'rejected';
}

export type ProviderHttp = ReturnType<typeof providerHttp>;

/**
 * A token endpoint's refusal (invalid_grant, invalid_client: RFC 6749 §5.2) is no expired *access*
 * token: the grant itself is gone, so it is `rejected`, whatever status the platform chose.
 */
export function grantRefused(err: unknown): unknown {
  if (err instanceof ProviderError && err.kind === 'token_expired') {
    return new ProviderError(err.platform, 'rejected', err.message, { status: err.status });
  }
  return err;
}

/** Characters as a person counts them (code points), so an emoji is one. */
export const characters = (s: string) => [...s].length;

export const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) ? n : 0);

/** What every provider factory takes (SERVICE_<P>_CLIENT_ID/SECRET/API_URL/AUTH_URL), as X's does. */
export interface ClientOptions {
  /** The platform's API base URL; the real one by default. */
  apiUrl?: string;
  /** The platform's authorise page; the real one by default. */
  authUrl?: string;
  clientId: string;
  clientSecret?: string;
  /** Per request; 30 s by default. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => Date;
}

/** `base` with `params` added to its query (keeping what the configured URL already has). */
export function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.toString();
}

export const expiresAt = (now: Date, seconds: unknown) =>
  typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(now.getTime() + seconds * 1000) : null;
