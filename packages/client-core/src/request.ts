import { APIPromise, type APIResponse, withData } from './api-promise.js';
import {
  APIUserAbortError,
  ApiError,
  apiErrorFromResponse,
  ConnectionError,
  MissingUserTokenError,
  parseErrorBody,
  TimeoutError,
} from './errors.js';
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
}

/**
 * Tagged template that percent-encodes each interpolated value: encodePath`/merchants/${id}`.
 *
 * An empty id, `.` or `..` would still change which route is called (`/merchants/` is the list,
 * and URL parsers resolve `..` and `%2E%2E` alike), so those throw instead of being sent.
 */
export function encodePath(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce((path, part, index) => {
    if (index >= values.length) return path + part;
    const value = String(values[index]);
    if (value === '' || value === '.' || value === '..') {
      throw new TypeError(
        `Path parameter ${index + 1} of "${strings.join('{}')}" is ${JSON.stringify(value)}; expected an id.`,
      );
    }
    return path + part + encodeURIComponent(value);
  }, '');
}

// setTimeout fires at once for delays above 2^31-1 ms; clamp instead of surprising.
const MAX_TIMER_MS = 2_147_483_647;

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

function isStream(body: unknown): body is ReadableStream {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
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

function parseSuccessBody(response: Response, text: string, requestId: string | null): unknown {
  if (text === '') return undefined;
  const type = response.headers.get('content-type') ?? '';
  if (!/[/+]json\b/i.test(type)) return text;
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ApiError(`${response.status} response claims JSON but is not: ${text.slice(0, 200)}`, {
      status: response.status,
      requestId,
      headers: response.headers,
      body: text,
      cause,
    });
  }
}

interface Attempt {
  response: Response;
  /** The body as read, for the copy `lazyResponse` builds; only kept for 2xx. */
  bytes: Uint8Array<ArrayBuffer> | undefined;
  text: string;
}

// Statuses whose Response may not carry a body (the Response constructor throws otherwise).
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const utf8 = new TextDecoder();

/**
 * An unread Response equal to `response`, whose body was read as `bytes`: what withResponse()
 * and asResponse() hand out. Built on first read of the result's `response` rather than by
 * `response.clone()` before reading, because a clone tees the body stream on every call: it
 * was the largest cost the client added over a bare fetch, paid even by callers that only want
 * the data. url, redirected and type are read-only on a constructed Response, so they are
 * carried over as own properties.
 */
function lazyResponse<T>(
  result: Omit<APIResponse<T>, 'response'>,
  response: Response,
  bytes: Uint8Array<ArrayBuffer>,
) {
  let copy: Response | undefined;
  return Object.defineProperty(result, 'response', {
    enumerable: true,
    configurable: true,
    get(): Response {
      if (copy) return copy;
      copy = new Response(NULL_BODY_STATUSES.has(response.status) ? null : bytes, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
      for (const name of ['url', 'redirected', 'type'] as const) {
        Object.defineProperty(copy, name, { value: response[name], enumerable: true });
      }
      return copy;
    },
  }) as APIResponse<T>;
}

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
    const { key, query, ...rest } = options;
    return new PagePromise<T, ListPage<T, K>>(async (after) => {
      const result = await this.request<unknown>({
        ...rest,
        method: 'GET',
        query: { ...query, after: after ?? query?.after },
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
    const maxRetries = options.maxRetries ?? this.config.maxRetries;
    const timeoutMs = options.timeoutMs ?? this.config.timeoutMs;
    assertMaxRetries(maxRetries, `${method} /${path}`);
    assertTimeout(timeoutMs, `${method} /${path}`);

    const { body, contentType } = this.#body(options.body);
    const headers = this.#headers(method, options, contentType);
    // A stream can be read only once, so it cannot be sent again.
    const retries = isStream(body) ? 0 : maxRetries;
    const url = buildUrl(this.config.baseUrl, path, options.query);
    const { signal } = options;
    const wait = this.config.sleep ?? sleep;

    for (let retry = 0; ; retry++) {
      if (signal?.aborted) throw abortError(signal);
      let attempt: Attempt;
      try {
        attempt = await this.#attempt(url, { method, headers, body }, timeoutMs, signal);
      } catch (error) {
        if (!(error instanceof ConnectionError) || retry >= retries) throw error;
        await raceAbort(wait(backoffDelay(retry, this.config.random), signal), signal, () =>
          abortError(signal as AbortSignal),
        );
        continue;
      }

      const { response, bytes, text } = attempt;
      const requestId = response.headers.get('service-request-id');
      if (response.ok) {
        const result = {
          data: parseSuccessBody(response, text, requestId) as T,
          requestId,
          idempotentReplayed: response.headers.get('idempotent-replayed')?.toLowerCase() === 'true',
        };
        return lazyResponse(result, response, bytes ?? new Uint8Array(0));
      }
      const failure = apiErrorFromResponse(response, parseErrorBody(text));
      if (retry >= retries || !isRetryableStatus(response.status, failure.code)) throw failure;
      const delay = retryDelay(retry, response.headers, this.config.random);
      if (delay === null) throw failure;
      await raceAbort(wait(delay, signal), signal, () => abortError(signal as AbortSignal));
    }
  }

  #body(body: unknown): { body: BodyInit | undefined; contentType: string | undefined } {
    if (body === undefined) return { body: undefined, contentType: undefined };
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

  /**
   * One attempt: the fetch and the body read, under this attempt's timeout and the caller's
   * signal. The controller is what cancels the fetch (and frees its socket); the timer and the
   * caller's abort settle the attempt themselves, so a `fetch` that ignores its signal (a custom
   * one, a mock) still cannot hold the caller past either. No listener on the controller's own
   * signal and no racing promise around the exchange: on a cheap call those were a visible part
   * of what the client cost over a bare fetch (docs/benchmarks.md).
   */
  #attempt(
    url: string,
    init: { method: HttpMethod; headers: Headers; body: BodyInit | undefined },
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Attempt> {
    const controller = new AbortController();
    return new Promise<Attempt>((resolve, reject) => {
      let timedOut = false;
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onCallerAbort);
      };
      // Remembers which of abort, timeout or network it was, so the error says so.
      const fail = (error: unknown) => {
        if (settled) return;
        settle();
        reject(this.#classify(error, init.method, url, timeoutMs, signal, timedOut));
      };
      const timer = setTimeout(
        () => {
          timedOut = true;
          controller.abort();
          fail(controller.signal.reason);
        },
        Math.min(timeoutMs, MAX_TIMER_MS),
      );
      const onCallerAbort = () => {
        controller.abort(signal?.reason);
        fail(signal?.reason);
      };
      signal?.addEventListener('abort', onCallerAbort, { once: true });
      this.#exchange(url, init, controller.signal).then((attempt) => {
        if (settled) return;
        settle();
        resolve(attempt);
      }, fail);
    });
  }

  /** Sends the request and reads its body, inside the attempt so the timeout covers the body too. */
  async #exchange(
    url: string,
    init: { method: HttpMethod; headers: Headers; body: BodyInit | undefined },
    signal: AbortSignal,
  ): Promise<Attempt> {
    const request: RequestInit & { duplex?: 'half' } = {
      method: init.method,
      headers: init.headers,
      body: init.body,
      signal,
    };
    // Node's fetch refuses a streamed body unless it is sent half-duplex.
    if (isStream(init.body)) request.duplex = 'half';
    // The global is looked up per call, so fetch mocks and polyfills installed later apply,
    // and called as a plain function: browsers throw "Illegal invocation" for another `this`.
    const customFetch = this.config.fetch;
    const response = customFetch ? await customFetch(url, request) : await globalThis.fetch(url, request);
    // A connection that drops mid-body is retried like any other connection error.
    if (!response.ok) return { response, bytes: undefined, text: await response.text() };
    const bytes = new Uint8Array(await response.arrayBuffer());
    // The same decoding as response.text(): UTF-8, a leading BOM dropped, bad bytes replaced.
    return { response, bytes, text: utf8.decode(bytes) };
  }

  #classify(
    error: unknown,
    method: HttpMethod,
    url: string,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    timedOut: boolean,
  ): ApiError {
    if (error instanceof ApiError) return error;
    if (signal?.aborted) return new APIUserAbortError(undefined, { cause: signal.reason });
    // The message names the URL: "fetch failed" alone does not say which server was
    // down, and a wrong baseUrl or a server that is not running is the usual reason.
    const where = `${method} ${withoutQuery(url)}`;
    if (timedOut)
      return new TimeoutError(`Request timed out after ${timeoutMs} ms: ${where}.`, { cause: error });
    return new ConnectionError(
      `Connection error: ${where} failed (${networkDetail(error)}). Is the server running at ${new URL(url).origin}, and is baseUrl right?`,
      { cause: error },
    );
  }
}

/** The query may carry values the caller would not want in a log line; the path is enough to act on. */
const withoutQuery = (url: string) => url.split('?')[0] as string;

/**
 * Node's fetch says "fetch failed" and keeps the reason in `cause` (`connect ECONNREFUSED …`, or
 * an AggregateError with only a code when both of localhost's addresses refused).
 */
function networkDetail(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.message === 'string' && cause.message) return cause.message;
  if (cause && typeof cause.code === 'string') return cause.code;
  return error.message;
}
