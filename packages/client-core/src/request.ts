import { APIPromise, type APIResponse, withData } from './api-promise.js';
import { runAttempt } from './attempt.js';
import {
  ApiError,
  apiErrorFromHead,
  ConnectionError,
  MissingUserTokenError,
  parseErrorBody,
} from './errors.js';
import { isStream } from './fetch-transport.js';
import {
  assertMaxRetries,
  assertTimeout,
  type ClientOptions,
  type CoreConfig,
  type ResolvedConfig,
  resolveConfig,
} from './options.js';
import { type ListPage, PagePromise, toListPage } from './pagination.js';
import { abortError, backoffDelay, isRetryableStatus, raceAbort, retryDelay, sleep } from './retry.js';
import type { Answer } from './transport.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

type QueryScalar = string | number | boolean | null | undefined;
/** `undefined` and `null` are left out; arrays repeat the key (`?id=a&id=b`). */
export type QueryParams = Record<string, QueryScalar | readonly QueryScalar[]>;

/** A `null` value removes a header the client would otherwise send. */
export type HeadersOption = Record<string, string | null | undefined>;

/** Per-call options every client method accepts as its last argument. */
export interface RequestOptions {
  headers?: HeadersOption | undefined;
  signal?: AbortSignal | undefined;
  /** Overrides the generated `Idempotency-Key`. Reuse it to make a retried call from your side safe. */
  idempotencyKey?: string | undefined;
  maxRetries?: number | undefined;
  timeoutMs?: number | undefined;
}

/**
 * Everything one request needs. A body that is FormData, URLSearchParams, Blob,
 * ArrayBuffer(-view) or ReadableStream is sent as is; any other value is sent as JSON.
 */
export interface FinalRequestOptions extends RequestOptions {
  method: HttpMethod;
  /** Relative to `baseUrl`; a leading slash is fine. Build it with `encodePath`. */
  path: string;
  query?: QueryParams | undefined;
  body?: unknown;
  /** Reject with MissingUserTokenError, sending nothing, when the client has no user token. */
  requiresUserToken?: boolean | undefined;
}

export interface ListRequestOptions<K extends string> extends RequestOptions {
  path: string;
  /** The list's key in the response body, e.g. `merchants`. */
  key: K;
  /** Sent with every page; `after` here sets the starting cursor. */
  query?: QueryParams | undefined;
  requiresUserToken?: boolean | undefined;
  /** GET unless the list does work as it reads (content's outcomes settle the page: a POST). */
  method?: 'GET' | 'POST' | undefined;
}

/**
 * Tagged template that percent-encodes each interpolated value: encodePath`/merchants/${id}`.
 *
 * An empty id, `.` or `..` would still change which route is called (`/merchants/` is the list,
 * and URL parsers resolve `..` and `%2E%2E` alike), so those throw instead of being sent.
 */
export function encodePath(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  // A loop rather than a reduce: every call by id builds its path here.
  let path = strings[0] as string;
  for (let index = 0; index < values.length; index++) {
    const value = String(values[index]);
    if (value === '' || value === '.' || value === '..') {
      throw new TypeError(
        `Path parameter ${index + 1} of "${strings.join('{}')}" is ${JSON.stringify(value)}; expected an id.`,
      );
    }
    path += encodeURIComponent(value) + (strings[index + 1] as string);
  }
  return path;
}

function isPassThroughBody(body: unknown): body is BodyInit {
  return (
    body instanceof FormData ||
    body instanceof URLSearchParams ||
    body instanceof Blob ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    isStream(body)
  );
}

// A path the URL parser would give back unchanged: only characters it leaves as they are, and
// no `.`/`..` segment (plain or percent-encoded) for it to resolve.
const PLAIN_PATH = /^[\w\-.~%!$&'()*+,;=:@/]*$/;
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

/** `baseUrl` (ends in `/`) + `path` (no leading slash) + the query, as one absolute URL. */
function buildUrl(baseUrl: string, path: string, query: QueryParams | undefined): string {
  // Most calls (a retrieve by id) have no query: skip parsing a URL that would come back as is.
  // baseUrl is already an href (normalizeBaseUrl).
  if (query === undefined && PLAIN_PATH.test(path) && !DOT_SEGMENT.test(path)) return baseUrl + path;
  const url = new URL(baseUrl + path);
  for (const [name, value] of Object.entries(query ?? {})) {
    const values: readonly QueryScalar[] = Array.isArray(value) ? value : [value as QueryScalar];
    for (const item of values) {
      if (item !== undefined && item !== null) url.searchParams.append(name, String(item));
    }
  }
  return url.href;
}

function parseSuccessBody(answer: Answer, text: string, requestId: string | null): unknown {
  if (text === '') return undefined;
  const type = answer.header('content-type') ?? '';
  if (!/[/+]json\b/i.test(type)) return text;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ApiError(`${answer.status} response claims JSON but is not: ${text.slice(0, 200)}`, {
      status: answer.status,
      requestId,
      headers: answer.headers,
      body: text,
      cause,
    });
  }
}

const NO_BODY = { body: undefined, contentType: undefined } as const;

/**
 * The result of a 2xx: its data, and an unread Response equal to the one received, whose body was
 * read already, for withResponse() and asResponse(). The copy is built on first read of `response`
 * (Answer.unreadResponse) rather than by `response.clone()` before reading, because a clone tees
 * the body stream on every call: it was the largest cost the client added over a bare fetch,
 * paid even by callers that only want the data. `response` is an own, enumerable getter, so a
 * spread of the result carries it; it is defined with one descriptor shared by every result. An
 * object literal with a getter made a new closure, and so a new accessor, on every call, which
 * kept V8 from giving the results one shape: about 10 µs a call of the client's own cost
 * (sixteenth pass in docs/benchmarks.md).
 */
class SuccessResult<T> implements APIResponse<T> {
  declare readonly response: Response;

  constructor(
    public data: T,
    public requestId: string | null,
    public idempotentReplayed: boolean,
    answer: Answer,
  ) {
    // What `response` is built from sits in a non-enumerable symbol slot read as a plain
    // property, not in private fields: a private field throws when the getter's receiver is not
    // the instance itself, and a result held in Vue's reactive()/ref() (a Proxy), made with
    // Object.create, or read through a borrowed getter has another receiver.
    Object.defineProperty(this, ANSWER, { value: { answer, copy: undefined } });
    Object.defineProperty(this, 'response', RESPONSE_FROM_ANSWER);
  }
}

const ANSWER = Symbol('svc.result.answer');

const RESPONSE_FROM_ANSWER = {
  get(this: { [ANSWER]: { answer: Answer; copy: Response | undefined } }): Response {
    const held = this[ANSWER];
    held.copy ??= held.answer.unreadResponse();
    return held.copy;
  },
  enumerable: true,
  configurable: true,
};

/**
 * The request core. Each client wraps one (`new ClientCore({ ...options, serviceClient })`)
 * and builds its resource methods on `request` and `list`.
 */
export class ClientCore {
  readonly config: ResolvedConfig;
  readonly #input: CoreConfig;

  /** The headers every request starts from; the config never changes, so they are built once. */
  readonly #baseHeaders: Headers;

  constructor(config: CoreConfig) {
    this.#input = { ...config };
    this.config = resolveConfig(config);
    const { apiKey, userToken, serviceClient, defaultHeaders } = this.config;
    const headers = new Headers({ accept: 'application/json', 'service-client': serviceClient });
    if (apiKey) headers.set('authorization', `Bearer ${apiKey}`);
    if (userToken) headers.set('service-user-token', userToken);
    for (const [name, value] of Object.entries(defaultHeaders)) headers.set(name, value);
    this.#baseHeaders = headers;
  }

  /** A new core with some options changed, e.g. `withOptions({ userToken })` for `forUser`. */
  withOptions(patch: Partial<ClientOptions>): ClientCore {
    return new ClientCore({ ...this.#input, ...patch });
  }

  request<T = unknown>(options: FinalRequestOptions): APIPromise<T> {
    return new APIPromise<T>(this.#send<T>(options));
  }

  /** A list endpoint following `{ <key>: T[], has_more, next_after }`, paged with `after`. */
  list<T, K extends string>(options: ListRequestOptions<K>): PagePromise<T, ListPage<T, K>> {
    const { key, query, method = 'GET', ...rest } = options;
    return new PagePromise<T, ListPage<T, K>>(async (after) => {
      const result = await this.request<unknown>({
        ...rest,
        method,
        query: { ...query, after: after ?? query?.after },
        // A caller's Idempotency-Key is a POST list's first page's only: the servers fingerprint a
        // key by method, path and body, not the query, so the next page under it would replay the
        // first and end the list there. Later pages get the generated key every POST has.
        ...(method === 'POST' && after !== undefined ? { idempotencyKey: undefined } : {}),
      }).withResponse();
      return withData(result, toListPage<T, K>(result.data, key));
    });
  }

  async #send<T>(options: FinalRequestOptions): Promise<APIResponse<T>> {
    const method = options.method.toUpperCase() as HttpMethod;
    const path = options.path.replace(/^\/+/, '');
    if (options.requiresUserToken && !this.config.userToken) {
      throw new MissingUserTokenError(
        `${method} /${path} acts for a user and this client has no user token. ` +
          'Call it on client.forUser(userToken), the user token from the approval flow.',
      );
    }
    // The client's own values were checked when it was made; a per-call override is checked
    // here, and only then is the message's text built.
    const maxRetries = options.maxRetries ?? this.config.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    if (options.maxRetries !== undefined) assertMaxRetries(maxRetries, `${method} /${path}`);
    if (options.timeoutMs !== undefined) assertTimeout(timeoutMs, `${method} /${path}`);

    const { body, contentType } = options.body === undefined ? NO_BODY : this.#body(options.body);
    const headers = this.#headers(method, options, contentType);
    // A stream can be read only once, so it cannot be sent again.
    const retries = isStream(body) ? 0 : maxRetries;
    const url = buildUrl(this.config.baseUrl, path, options.query);
    const { signal } = options;
    const init = { method, headers, body, maxResponseBytes: this.config.maxResponseBytes };

    for (let retry = 0; ; retry++) {
      if (signal?.aborted) throw abortError(signal);
      let answer: Answer;
      try {
        answer = await runAttempt(this.config.fetch, url, init, timeoutMs, signal);
      } catch (error) {
        if (!(error instanceof ConnectionError) || retry >= retries) throw error;
        await this.#wait(backoffDelay(retry, this.config.random), signal);
        continue;
      }

      const { text } = answer;
      const requestId = answer.header('service-request-id');
      if (answer.ok) {
        const data = parseSuccessBody(answer, text, requestId) as T;
        const replayed = answer.header('idempotent-replayed')?.toLowerCase() === 'true';
        return new SuccessResult(data, requestId, replayed, answer);
      }
      const failure = apiErrorFromHead(answer, parseErrorBody(text));
      if (retry >= retries || !isRetryableStatus(answer.status, failure.code)) throw failure;
      const delay = retryDelay(retry, answer.headers, this.config.random);
      if (delay === null) throw failure;
      await this.#wait(delay, signal);
    }
  }

  /** The pause before a retry, cut short by the caller's abort even if an injected sleep ignores it. */
  #wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const wait = this.config.sleep ?? sleep;
    return raceAbort(wait(ms, signal), signal, () => abortError(signal as AbortSignal));
  }

  #body(body: unknown): { body: BodyInit | undefined; contentType: string | undefined } {
    // The runtime sets multipart boundaries and other content types itself.
    if (isPassThroughBody(body)) return { body, contentType: undefined };
    return { body: JSON.stringify(body), contentType: 'application/json' };
  }

  #headers(method: HttpMethod, options: FinalRequestOptions, contentType: string | undefined): Headers {
    // A call that adds nothing (a retrieve, a list) sends the base headers as they are: the
    // global fetch copies them into its request and never writes to them. A custom fetch gets a
    // copy, since it might.
    const adds = contentType || options.headers || options.idempotencyKey || method === 'POST';
    if (!adds && !this.config.fetch) return this.#baseHeaders;
    const headers = new Headers(this.#baseHeaders);
    // defaultHeaders, already in the base, win over the content type the body implies.
    if (contentType && !headers.has('content-type')) headers.set('content-type', contentType);
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value === null) headers.delete(name);
      else if (value !== undefined) headers.set(name, value);
    }
    // Generated once per call, before the retry loop, so every retry carries the same
    // key and the server runs the operation at most once (stripe-node's approach).
    if (options.idempotencyKey) headers.set('idempotency-key', options.idempotencyKey);
    else if (method === 'POST' && !headers.has('idempotency-key')) {
      headers.set('idempotency-key', crypto.randomUUID());
    }
    return headers;
  }
}
