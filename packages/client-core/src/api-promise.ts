/** What `.withResponse()` resolves to. */
export interface APIResponse<T> {
  /** The parsed body; the same value awaiting the promise gives. */
  data: T;
  /** The final attempt's response. Its body is still unread, so `response.blob()` etc. work. */
  response: Response;
  /** `Service-Request-Id` of the final attempt. */
  requestId: string | null;
  /** True when the server answered from its idempotency store (`Idempotent-Replayed: true`). */
  idempotentReplayed: boolean;
}

/**
 * The same result with other data. The `response` of a result the core made is built on first
 * read (see `SuccessResult` in request.ts); a getter that reads through keeps it lazy, where a
 * spread would build it for every page of a list whether or not anyone reads it. The getter is
 * own and enumerable (a spread of the result carries `response`), from one descriptor shared by
 * every result: an object literal with a getter makes a closure and an accessor per call.
 */
class WithData<T, U> implements APIResponse<U> {
  declare readonly response: Response;
  requestId: string | null;
  idempotentReplayed: boolean;

  constructor(
    public data: U,
    result: APIResponse<T>,
  ) {
    this.requestId = result.requestId;
    this.idempotentReplayed = result.idempotentReplayed;
    // A non-enumerable symbol slot, not a private field, so the getter works for any receiver
    // (a Proxy of the result, Object.create); see SuccessResult in request.ts.
    Object.defineProperty(this, SOURCE, { value: result });
    Object.defineProperty(this, 'response', RESPONSE_FROM_SOURCE);
  }
}

const SOURCE = Symbol('svc.result.source');

const RESPONSE_FROM_SOURCE = {
  get(this: { [SOURCE]: APIResponse<unknown> }): Response {
    return this[SOURCE].response;
  },
  enumerable: true,
  configurable: true,
};

/** `result` with `data` in place of its own. */
export function withData<T, U>(result: APIResponse<T>, data: U): APIResponse<U> {
  return new WithData(data, result);
}

const dataOf = <T>(result: APIResponse<T>): T => result.data;

/**
 * A Promise of the parsed body that can also hand out the raw response.
 *
 * The request starts when the APIPromise is created (like fetch), not when it is
 * awaited, so that `.withResponse()` and `await` see one and the same request. The
 * body-only promises are derived only when asked for: a caller who only uses `.withResponse()`
 * never creates a second promise that could reject unhandled.
 */
export class APIPromise<T> implements Promise<T> {
  readonly #result: Promise<APIResponse<T>>;

  constructor(result: Promise<APIResponse<T>>) {
    this.#result = result;
  }

  /** The parsed body plus the response, request id and idempotent-replay flag. */
  withResponse(): Promise<APIResponse<T>> {
    return this.#result;
  }

  /** The raw Response (body unread). Errors still reject as typed errors. */
  asResponse(): Promise<Response> {
    return this.#result.then((result) => result.response);
  }

  /**
   * For client authors: reshape the data (e.g. unwrap `{ orders: [...] }`) while
   * keeping `.withResponse()` working on the result.
   */
  _thenUnwrap<U>(transform: (data: T, result: APIResponse<T>) => U): APIPromise<U> {
    return new APIPromise(this.#result.then((result) => withData(result, transform(result.data, result))));
  }

  // Each derives straight from the result: `await` calls `then` once per call, and an
  // intermediate promise of the data would cost every call one more promise and tick.
  // biome-ignore lint/suspicious/noThenProperty: an APIPromise is meant to be awaited.
  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#result.then(
      onfulfilled ? (result) => onfulfilled(result.data) : (dataOf as (result: APIResponse<T>) => R1),
      onrejected,
    );
  }

  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.#result.then(dataOf, onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#result.then(dataOf).finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return 'APIPromise';
  }
}
