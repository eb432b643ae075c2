/** Options both clients accept, unchanged, so the two feel like one family. */
export interface ClientOptions {
  /**
   * The service root, with or without the `/v1` API path and a trailing slash:
   * `http://localhost:3000`, `http://localhost:3000/v1` and `http://localhost:3000/v1/` are
   * the same. A service behind a path prefix works too (`https://example.com/svc`).
   */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. Omit for unauthenticated endpoints. */
  apiKey?: string | undefined;
  /**
   * Per attempt, including reading the body; each retry gets its own. Default 60 000. A timed-out
   * attempt ends between `timeoutMs` and `timeoutMs` + 10 ms after it started, never sooner
   * (attempts starting within the same 10 ms share one timer).
   */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number | undefined;
  /**
   * The most bytes of one response body the client reads, per attempt. Default 32 MiB, far above
   * any answer the API sends (a page lists at most 100 items). A bigger body rejects
   * with `ResponseTooLargeError`, unretried, and its connection is closed.
   */
  maxResponseBytes?: number | undefined;
  /**
   * A fetch implementation, always used when given. Without it: `node:http` on Node, unless the
   * global `fetch` was replaced after the client loaded (a mock, a polyfill), and the global
   * `fetch`, looked up on each request, everywhere else.
   */
  fetch?: typeof fetch | undefined;
  /** Added to every request. Per-request `headers` override these. */
  defaultHeaders?: Record<string, string> | undefined;
  /** Sent as `Service-User-Token` on every request. Needed by user-scoped endpoints. */
  userToken?: string | undefined;
}

/** Sleeps `ms`, rejecting early if `signal` aborts. Injectable so tests never wait for real. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** What a client passes to ClientCore: the user's options plus things only the client knows. */
export interface CoreConfig extends ClientOptions {
  /** `<package>/<version>`, sent as `Service-Client` (browsers forbid setting User-Agent). */
  serviceClient: string;
  /** Test hook: replaces the retry back-off sleep. */
  sleep?: Sleep | undefined;
  /** Test hook: source of jitter in [0, 1). Defaults to Math.random. */
  random?: (() => number) | undefined;
}

export interface ResolvedConfig {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly maxResponseBytes: number;
  readonly fetch: typeof fetch | undefined;
  readonly defaultHeaders: Readonly<Record<string, string>>;
  readonly userToken: string | undefined;
  readonly serviceClient: string;
  readonly sleep: Sleep | undefined;
  readonly random: () => number;
}

/** Every route of both APIs is under this path. */
export const API_VERSION_PATH = '/v1';

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;
/**
 * Without a cap, an endless or huge body (from a compromised server, or a proxy in between) is
 * read into memory until the timeout.
 * 32 MiB is far above the API's largest answers: a page of at most 100 items, the OpenAPI document
 * (docs/openapi/content.json, about 450 KB).
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export function assertMaxRetries(value: number, where: string): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new TypeError(`${where}: maxRetries must be a whole number >= 0, got ${value}`);
  }
}

export function assertMaxResponseBytes(value: number, where: string): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`${where}: maxResponseBytes must be a whole number of bytes > 0, got ${value}`);
  }
}

export function assertTimeout(value: number, where: string): void {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new TypeError(`${where}: timeoutMs must be a positive number of milliseconds, got ${value}`);
  }
}

/**
 * The API root that paths are joined to: `baseUrl` with `/v1` added when it is not already
 * the last segment, and exactly one trailing slash. The specs give the service root without
 * `/v1` (MCP lives at `{base_url}/mcp`), while the REST API lives under `/v1`, so users meet
 * both spellings; each one reaches the same API.
 */
export function normalizeBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' || baseUrl === '') {
    throw new TypeError('baseUrl is required, e.g. "https://api.example.com"');
  }
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not an absolute URL: "${baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http(s) URL: "${baseUrl}"`);
  }
  if (url.username || url.password) {
    throw new TypeError('baseUrl must not carry credentials; pass apiKey or defaultHeaders instead.');
  }
  if (url.search || url.hash || baseUrl.includes('?') || baseUrl.includes('#')) {
    throw new TypeError(`baseUrl must not carry a query or fragment: "${baseUrl}"`);
  }
  // eslint-disable-next-line regexp/no-super-linear-move -- the caller's own baseUrl, not outside input
  const path = url.pathname.replace(/\/+$/, '');
  const root = path.endsWith(API_VERSION_PATH) ? path : `${path}${API_VERSION_PATH}`;
  return `${url.origin}${root}/`;
}

// Throwing here (a programming error) rather than at the first request points at the
// constructor call, where the mistake is.
export function resolveConfig(config: CoreConfig): ResolvedConfig {
  const baseUrl = normalizeBaseUrl(config.baseUrl);
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
  assertTimeout(timeoutMs, 'client options');
  assertMaxRetries(maxRetries, 'client options');
  const maxResponseBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  assertMaxResponseBytes(maxResponseBytes, 'client options');
  return {
    baseUrl,
    apiKey: config.apiKey || undefined,
    timeoutMs,
    maxRetries,
    maxResponseBytes,
    fetch: config.fetch,
    defaultHeaders: { ...config.defaultHeaders },
    userToken: config.userToken || undefined,
    serviceClient: config.serviceClient,
    sleep: config.sleep,
    random: config.random ?? Math.random,
  };
}
