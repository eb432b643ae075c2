/** Options both clients accept, unchanged, so the two feel like one family. */
export interface ClientOptions {
  /** Service root. For commerce it includes `/v1`. A trailing slash is optional. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`. Omit for unauthenticated endpoints. */
  apiKey?: string | undefined;
  /** Per attempt, including reading the body. Default 60 000. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number | undefined;
  /** A fetch implementation; defaults to the global `fetch`, looked up on each request. */
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
  readonly fetch: typeof fetch | undefined;
  readonly defaultHeaders: Readonly<Record<string, string>>;
  readonly userToken: string | undefined;
  readonly serviceClient: string;
  readonly sleep: Sleep | undefined;
  readonly random: () => number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;

export function assertMaxRetries(value: number, where: string): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new TypeError(`${where}: maxRetries must be a whole number >= 0, got ${value}`);
  }
}

export function assertTimeout(value: number, where: string): void {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new TypeError(`${where}: timeoutMs must be a positive number of milliseconds, got ${value}`);
  }
}

// Throwing here (a programming error) rather than at the first request points at the
// constructor call, where the mistake is.
export function resolveConfig(config: CoreConfig): ResolvedConfig {
  if (typeof config.baseUrl !== 'string' || config.baseUrl === '') {
    throw new TypeError('baseUrl is required, e.g. "https://api.example.com/v1"');
  }
  let url: URL;
  try {
    url = new URL(config.baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not an absolute URL: "${config.baseUrl}"`);
  }
  if (url.search || url.hash) {
    throw new TypeError(`baseUrl must not carry a query or fragment: "${config.baseUrl}"`);
  }
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRetries = config.maxRetries ?? DEFAULT_MAX_RETRIES;
  assertTimeout(timeoutMs, 'client options');
  assertMaxRetries(maxRetries, 'client options');
  return {
    // One trailing slash, so "…/v1" and "…/v1/" both join with "merchants" to "…/v1/merchants".
    baseUrl: `${url.href.replace(/\/+$/, '')}/`,
    apiKey: config.apiKey || undefined,
    timeoutMs,
    maxRetries,
    fetch: config.fetch,
    defaultHeaders: { ...config.defaultHeaders },
    userToken: config.userToken || undefined,
    serviceClient: config.serviceClient,
    sleep: config.sleep,
    random: config.random ?? Math.random,
  };
}
