// What one attempt's exchange hands back, whichever transport carried it, and which transport a
// call uses. Two transports: the runtime's `fetch` (everywhere, and whenever a fetch is given
// or installed), and `node:http`/`node:https` on Node, where fetch's per-request signal
// handling cost more than the rest of the client together (docs/decisions/client-transport.md).
import type { NodeHttp } from './node-builtins.js';
import { nodeBuiltin } from './node-builtins.js';

/** The status line and headers, as errors read them; a Response is one. */
export interface ResponseHead {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly type?: ResponseType;
}

/** One response, read under the cap. */
export interface Answer extends ResponseHead {
  readonly ok: boolean;
  /**
   * One header by its lower-case name, as `Headers.get` gives it. The node transport reads it
   * from node's own parsed headers, so a call that needs only these never builds a `Headers`.
   */
  header(name: string): string | null;
  /** The body as text: UTF-8, a leading BOM dropped, bad bytes replaced (as `response.text()`). */
  readonly text: string;
  /** An unread Response equal to the one received, whose body is the bytes read; 2xx only. */
  unreadResponse(): Response;
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * The global fetch as it was when this module was evaluated. While `globalThis.fetch` is still
 * that function, nobody has stubbed, patched or replaced it, so Node's own `node:http` can carry
 * the call; once it differs (a test's `vi.stubGlobal`, msw's interceptor, a polyfill installed
 * later), calls go through the global fetch as they always did, so mocks keep working.
 */
let fetchAtLoad = globalThis.fetch;

/**
 * Test hook, not exported to users: treat `fetch` as the runtime's own, so the choice above is
 * made against it; returns the one it replaces. client-core's suite runs under msw, which
 * replaces the global fetch and also answers node:http; adopting msw's fetch sends those tests
 * through node:http (test/helpers.ts).
 */
export function adoptRuntimeFetch(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  const previous = fetchAtLoad;
  fetchAtLoad = fetch;
  return previous;
}

let nodeHttp: NodeHttp | null | undefined;
let nodeHttps: NodeHttp | undefined;

/** `node:http` or `node:https` for this URL, when this call may use them; else undefined (fetch). */
export function nodeTransportFor(
  url: string,
  customFetch: FetchLike | undefined,
  body: unknown,
): NodeHttp | undefined {
  if (customFetch !== undefined || globalThis.fetch !== fetchAtLoad || !sendsWithNode(body)) return undefined;
  if (nodeHttp === undefined) {
    nodeHttp = nodeBuiltin<NodeHttp>('node:http') ?? null;
    nodeHttps = nodeHttp ? nodeBuiltin<NodeHttp>('node:https') : undefined;
  }
  if (nodeHttp === null) return undefined;
  return url.charCodeAt(4) === 115 /* https: */ ? nodeHttps : nodeHttp;
}

/**
 * Bodies node:http sends as fetch would. FormData (content's media uploads), Blob and streams
 * keep going through fetch, which encodes multipart and streams for us; encoding them again
 * here would be a second, less-tested copy of what the runtime already does.
 */
function sendsWithNode(body: unknown): boolean {
  return (
    body === undefined ||
    typeof body === 'string' ||
    body instanceof URLSearchParams ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body)
  );
}

// Statuses whose Response may not carry a body (the Response constructor throws otherwise).
export const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** What runs an attempt's exchange reports to, once: InFlight (attempt.ts). */
export interface Settle {
  succeed(answer: Answer): void;
  fail(error: unknown): void;
}
