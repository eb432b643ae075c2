// A response received through node:http, as the core reads it. The status and the few headers
// the core needs come straight from node's parsed head; the WHATWG `Headers` and `Response` the
// public API hands out (`withResponse()`, `asResponse()`, `ApiError.headers`) are built from the
// raw head only when asked for, so a plain `retrieve` pays for neither.
import type { NodeIncoming } from './node-builtins.js';
import { type Answer, NULL_BODY_STATUSES } from './transport.js';

const NO_BYTES = new Uint8Array(0);

export class NodeAnswer implements Answer {
  readonly #head: NodeIncoming;
  readonly #url: string;
  #headers: Headers | undefined;
  #bytes: Uint8Array<ArrayBuffer> = NO_BYTES;
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  /** What Node's fetch gives a response it did not follow or filter. */
  readonly type: ResponseType = 'basic';
  text = '';

  constructor(head: NodeIncoming, url: string) {
    this.#head = head;
    this.#url = url;
    this.status = head.statusCode ?? 0;
    this.statusText = head.statusMessage ?? '';
    this.ok = this.status >= 200 && this.status < 300;
  }

  /** True once node has received the whole body (it may still be in the stream's buffer). */
  get complete(): boolean {
    return this.#head.complete;
  }

  /** Node joins a repeated header with `, ` (set-cookie: an array), as `Headers.get` does. */
  header(name: string): string | null {
    const value = this.#head.headers[name];
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  }

  /**
   * Every header as sent, in order, repeats appended one by one: the same `Headers` fetch builds,
   * so `get` joins repeats and `getSetCookie()` gives each cookie apart.
   */
  get headers(): Headers {
    if (this.#headers) return this.#headers;
    const raw = this.#head.rawHeaders;
    const headers = new Headers();
    for (let index = 0; index < raw.length; index += 2) {
      headers.append(raw[index] as string, raw[index + 1] as string);
    }
    this.#headers = headers;
    return headers;
  }

  /** The body, once read under the cap. */
  read(bytes: Uint8Array<ArrayBuffer>, text: string): void {
    this.#bytes = bytes;
    this.text = text;
  }

  unreadResponse(): Response {
    const copy = new Response(NULL_BODY_STATUSES.has(this.status) ? null : this.#bytes, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
    // Read-only on a constructed Response; fetch's would name the URL it asked for.
    Object.defineProperty(copy, 'url', { value: this.#url, enumerable: true });
    Object.defineProperty(copy, 'redirected', { value: false, enumerable: true });
    Object.defineProperty(copy, 'type', { value: this.type, enumerable: true });
    return copy;
  }
}
