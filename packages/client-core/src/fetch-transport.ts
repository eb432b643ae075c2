// The fetch transport: the runtime's (or the caller's) fetch, and the body read under the cap.
// Browsers, Deno, Bun and Workers always use it; Node uses it when a fetch is given or the global
// one was replaced (transport.ts), and for FormData, Blob and stream bodies.
import type { AttemptInit } from './attempt.js';
import { readCapped } from './body-cap.js';
import { type Answer, type FetchLike, NULL_BODY_STATUSES } from './transport.js';

const utf8 = new TextDecoder();

export function isStream(body: unknown): body is ReadableStream {
  return typeof ReadableStream !== 'undefined' && body instanceof ReadableStream;
}

/** Sends the request and reads its body, inside the attempt so the timeout covers the body too. */
export async function fetchExchange(
  customFetch: FetchLike | undefined,
  url: string,
  init: AttemptInit,
  signal: AbortSignal,
): Promise<Answer> {
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
  // the cap is not (ResponseTooLargeError is an ApiError, which InFlight passes on as is).
  const bytes = await readCapped(
    response,
    init.maxResponseBytes,
    customFetch === undefined,
    init.method,
    url,
  );
  // The same decoding as response.text(): UTF-8, a leading BOM dropped, bad bytes replaced.
  return new FetchAnswer(response, response.ok ? bytes : undefined, utf8.decode(bytes));
}

/** A fetch Response already read. Its getters pass through: each read of undici's is checked. */
class FetchAnswer implements Answer {
  readonly #response: Response;
  /** The body as read, for the copy `unreadResponse` builds; only kept for 2xx. */
  readonly #bytes: Uint8Array<ArrayBuffer> | undefined;
  readonly headers: Headers;

  constructor(
    response: Response,
    bytes: Uint8Array<ArrayBuffer> | undefined,
    readonly text: string,
  ) {
    this.#response = response;
    this.#bytes = bytes;
    this.headers = response.headers;
  }

  get status(): number {
    return this.#response.status;
  }
  get statusText(): string {
    return this.#response.statusText;
  }
  get ok(): boolean {
    return this.#response.ok;
  }
  get type(): ResponseType {
    return this.#response.type;
  }

  header(name: string): string | null {
    return this.headers.get(name);
  }

  unreadResponse(): Response {
    const response = this.#response;
    const copy = new Response(NULL_BODY_STATUSES.has(response.status) ? null : (this.#bytes ?? null), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    for (const name of ['url', 'redirected', 'type'] as const) {
      Object.defineProperty(copy, name, { value: response[name], enumerable: true });
    }
    return copy;
  }
}
