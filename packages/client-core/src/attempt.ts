// One attempt of a request: the exchange (request sent, body read under the cap), under the
// attempt's timeout and the caller's signal, settled once by whichever comes first. The exchange
// runs on one of two transports (transport.ts): fetch, or node:http on Node. Every call pays for
// what is here, so it is written for a cheap call (docs/benchmarks/history.md, issue 20's
// client passes).
import { type Deadline, deadlineFor, type Timed } from './deadlines.js';
import { APIUserAbortError, ApiError, ConnectionError, requestLabel, TimeoutError } from './errors.js';
import { fetchExchange } from './fetch-transport.js';
import { NodeExchange } from './node-transport.js';
import type { HttpMethod } from './request.js';
import { type Answer, type FetchLike, nodeTransportFor, type Settle } from './transport.js';

export interface AttemptInit {
  method: HttpMethod;
  headers: Headers;
  body: BodyInit | undefined;
  /** The cap on the response body (`maxResponseBytes`). */
  maxResponseBytes: number;
}

/**
 * Runs one attempt. On the fetch transport, its fetch is cancelled (and its socket freed) through
 * a signal: the shared deadline's (deadlines.ts), or, when the caller passed a signal of their
 * own, a controller of the attempt's that either aborts. On the node transport, the deadline and
 * the abort destroy the request instead, and no signal is made at all. The deadline and the
 * caller's abort also settle the attempt themselves, so a `fetch` that ignores its signal (a
 * custom one, a mock) still cannot hold the caller past either.
 */
export function runAttempt(
  customFetch: FetchLike | undefined,
  url: string,
  init: AttemptInit,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    const http = nodeTransportFor(url, customFetch, init.body);
    const run = new InFlight(resolve, reject, url, init.method, timeoutMs, signal, http === undefined);
    if (http) {
      // node:http throws at once for what fetch rejects with (a header value node refuses).
      try {
        run.exchange = new NodeExchange(run, http, url, init);
      } catch (error) {
        run.fail(error);
      }
      return;
    }
    fetchExchange(customFetch, url, init, run.fetchSignal as AbortSignal).then(
      (answer) => run.succeed(answer),
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
class InFlight implements Timed, Settle {
  /** Fetch only, and only when the caller passed a signal: its abort must cancel this fetch and no other. */
  readonly #controller: AbortController | undefined;
  readonly #deadline: Deadline;
  /** What the fetch transport hands to fetch; undefined on the node transport. */
  readonly fetchSignal: AbortSignal | undefined;
  /** The node transport's request, which a timeout or an abort destroys. */
  exchange: { cancel(): void } | undefined;
  /** Remembers which of abort, timeout or network it was, so the error says so. */
  #timedOut = false;
  #settled = false;

  constructor(
    private readonly resolve: (answer: Answer) => void,
    private readonly reject: (error: ApiError) => void,
    private readonly url: string,
    private readonly method: HttpMethod,
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal | undefined,
    usesFetch: boolean,
  ) {
    this.#deadline = deadlineFor(timeoutMs);
    this.#deadline.join(this);
    if (signal) {
      if (usesFetch) {
        this.#controller = new AbortController();
        this.fetchSignal = this.#controller.signal;
      }
      signal.addEventListener('abort', this, { once: true });
    } else if (usesFetch) {
      this.fetchSignal = this.#deadline.signal;
    }
  }

  succeed(answer: Answer): void {
    if (this.#settle()) this.resolve(answer);
  }

  fail(error: unknown): void {
    if (this.#settle()) this.reject(this.#classify(error));
  }

  /** The deadline fired with this attempt still in flight; it aborts its own signal after. */
  timeOut(reason: unknown): void {
    this.#timedOut = true;
    this.#cancel(reason);
    this.fail(reason);
  }

  /** The caller's signal aborted (EventTarget calls a listener object's `handleEvent`). */
  handleEvent(): void {
    this.#cancel(this.signal?.reason);
    this.fail(this.signal?.reason);
  }

  #cancel(reason: unknown): void {
    this.#controller?.abort(reason);
    this.exchange?.cancel();
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

/**
 * Node's fetch says "fetch failed" and keeps the reason in `cause` (`connect ECONNREFUSED …`, or
 * an AggregateError with only a code when both of localhost's addresses refused); node:http's
 * error is the reason itself, and the same AggregateError has an empty message.
 */
function networkDetail(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error.cause ?? error) as { code?: unknown; message?: unknown };
  if (typeof cause.message === 'string' && cause.message) return cause.message;
  if (typeof cause.code === 'string') return cause.code;
  return error.message;
}
