// One attempt of a request: the fetch and the body read, under the attempt's timeout and the
// caller's signal. Every call pays for what is here, so it is written for a cheap call
// (docs/benchmarks/history.md, issue 20's client passes).
import { readCapped } from './body-cap.js';
import { type Deadline, deadlineFor, type Timed } from './deadlines.js';
import { APIUserAbortError, ApiError, ConnectionError, requestLabel, TimeoutError } from './errors.js';
import type { HttpMethod } from './request.js';

export interface AttemptInit {
  method: HttpMethod;
  headers: Headers;
  body: BodyInit | undefined;
  /** The cap on the response body (`maxResponseBytes`). */
  maxResponseBytes: number;
}

export interface Attempt {
  response: Response;
  /** The body as read, for the copy `successResult` builds; only kept for 2xx. */
  bytes: Uint8Array<ArrayBuffer> | undefined;
  text: string;
}

type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

const utf8 = new TextDecoder();

export function isStream(body: unknown): body is ReadableStream {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
}

/**
 * Runs one attempt. Its fetch is cancelled (and its socket freed) through a signal: the shared
 * deadline's (deadlines.ts), or, when the caller passed a signal of their own, a controller of
 * the attempt's that either aborts. The deadline and the caller's abort also settle the attempt
 * themselves, so a `fetch` that ignores its signal (a custom one, a mock) still cannot hold the
 * caller past either.
 */
export function runAttempt(
  customFetch: FetchLike | undefined,
  url: string,
  init: AttemptInit,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Attempt> {
  return new Promise<Attempt>((resolve, reject) => {
    const run = new InFlight(resolve, reject, url, init.method, timeoutMs, signal);
    exchange(customFetch, url, init, run.fetchSignal).then(
      (attempt) => run.succeed(attempt),
      (error: unknown) => run.fail(error),
    );
  });
}

/**
 * The state of one attempt in flight, settled once by whichever comes first: the exchange, the
 * deadline, the caller's abort. One object whose methods do the work, and the object itself as
 * the abort listener (`handleEvent`), instead of a closure for each: on a cheap call those
 * closures, and the names the bundler's `keepNames` gives each of them with
 * `Object.defineProperty` on every call, were a visible part of the client's cost over a bare
 * fetch.
 */
class InFlight implements Timed {
  /** Only when the caller passed a signal: its abort must cancel this fetch and no other. */
  readonly #controller: AbortController | undefined;
  readonly #deadline: Deadline;
  readonly fetchSignal: AbortSignal;
  /** Remembers which of abort, timeout or network it was, so the error says so. */
  #timedOut = false;
  #settled = false;

  constructor(
    private readonly resolve: (attempt: Attempt) => void,
    private readonly reject: (error: ApiError) => void,
    private readonly url: string,
    private readonly method: HttpMethod,
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.#deadline = deadlineFor(timeoutMs);
    this.#deadline.join(this);
    if (signal) {
      this.#controller = new AbortController();
      this.fetchSignal = this.#controller.signal;
      signal.addEventListener('abort', this, { once: true });
    } else {
      this.fetchSignal = this.#deadline.signal;
    }
  }

  succeed(attempt: Attempt): void {
    if (this.#settle()) this.resolve(attempt);
  }

  fail(error: unknown): void {
    if (this.#settle()) this.reject(this.#classify(error));
  }

  /** The deadline fired with this attempt still in flight; it aborts its own signal after. */
  timeOut(reason: unknown): void {
    this.#timedOut = true;
    this.#controller?.abort(reason);
    this.fail(reason);
  }

  /** The caller's signal aborted (EventTarget calls a listener object's `handleEvent`). */
  handleEvent(): void {
    this.#controller?.abort(this.signal?.reason);
    this.fail(this.signal?.reason);
  }

  /** True the first time: leaves the deadline and removes the abort listener. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#deadline.leave(this);
    this.signal?.removeEventListener('abort', this);
    return true;
  }

  #classify(error: unknown): ApiError {
    if (error instanceof ApiError) return error;
    const { signal, url } = this;
    if (signal?.aborted) return new APIUserAbortError(undefined, { cause: signal.reason });
    // The message names the URL: "fetch failed" alone does not say which server was
    // down, and a wrong baseUrl or a server that is not running is the usual reason.
    const where = requestLabel(this.method, url);
    if (this.#timedOut)
      return new TimeoutError(`Request timed out after ${this.timeoutMs} ms: ${where}.`, { cause: error });
    return new ConnectionError(
      `Connection error: ${where} failed (${networkDetail(error)}). Is the server running at ${new URL(url).origin}, and is baseUrl right?`,
      { cause: error },
    );
  }
}

/** Sends the request and reads its body, inside the attempt so the timeout covers the body too. */
async function exchange(
  customFetch: FetchLike | undefined,
  url: string,
  init: AttemptInit,
  signal: AbortSignal,
): Promise<Attempt> {
  const request: RequestInit & { duplex?: 'half' } = {
    method: init.method,
    headers: init.headers,
    body: init.body,
    signal,
    // Not followed: fetch drops only `Authorization` on a cross-origin redirect, so following one
    // would hand `Service-User-Token` (and any default header) to whatever origin a proxy or a
    // compromised server names. The 3xx comes back as an ApiError naming the Location instead.
    redirect: 'manual',
  };
  // Node's fetch refuses a streamed body unless it is sent half-duplex.
  if (isStream(init.body)) request.duplex = 'half';
  // The global is looked up per call, so fetch mocks and polyfills installed later apply,
  // and called as a plain function: browsers throw "Illegal invocation" for another `this`.
  const response = customFetch ? await customFetch(url, request) : await globalThis.fetch(url, request);
  // A connection that drops mid-body is retried like any other connection error; a body over
  // the cap is not (ResponseTooLargeError is an ApiError, which #classify passes on as is).
  const bytes = await readCapped(
    response,
    init.maxResponseBytes,
    customFetch === undefined,
    init.method,
    url,
  );
  // The same decoding as response.text(): UTF-8, a leading BOM dropped, bad bytes replaced.
  const text = utf8.decode(bytes);
  return { response, bytes: response.ok ? bytes : undefined, text };
}

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
