// What one attempt's exchange hands back, whichever transport carried it, and which transport a
// call uses. Two transports: the runtime's `fetch` (everywhere, and whenever a fetch is given
// or installed), and `node:http`/`node:https` on Node, where fetch's per-request signal
// handling cost more than the rest of the client together (docs/architecture.md, "The clients'
// transport").
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
  if (
    customFetch !== undefined ||
    globalThis.fetch !== fetchAtLoad ||
    !sendsWithNode(body) ||
    dispatcherInstalled()
  ) {
    return undefined;
  }
  if (nodeHttp === undefined) {
    nodeHttp = nodeBuiltin<NodeHttp>('node:http') ?? null;
    nodeHttps = nodeHttp ? nodeBuiltin<NodeHttp>('node:https') : undefined;
  }
  if (nodeHttp === null) return undefined;
  return url.charCodeAt(4) === 115 /* https: */ ? nodeHttps : nodeHttp;
}

/** Where undici (Node's fetch, and the npm package) keeps the process's global dispatcher. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
let dispatcherSeen: unknown;
let dispatcherVerdict = false;

/**
 * True while a program has installed a dispatcher of its own for fetch (`setGlobalDispatcher`):
 * a ProxyAgent or EnvHttpProxyAgent (a corporate proxy), a MockAgent (a test's mocks), an Agent
 * with its own TLS options (a private CA for a self-hosted svc). Each shapes every fetch in the
 * process, and node:http would quietly route around it: past the proxy, to the real network,
 * without the CA. So while one is installed, calls go through fetch. Node's own default (an
 * Agent made on the first fetch, every option unset) does not count. The verdict is kept for
 * the dispatcher it was made for, so a call pays one property read and one comparison.
 */
function dispatcherInstalled(): boolean {
  const dispatcher = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER];
  if (dispatcher === dispatcherSeen) return dispatcherVerdict;
  dispatcherSeen = dispatcher;
  dispatcherVerdict = dispatcher !== undefined && !isDefaultAgent(dispatcher);
  return dispatcherVerdict;
}

/**
 * Node's own default, or one just like it: a plain `Agent` whose connections are made the
 * default way. What makes a dispatcher the program's own: another class (ProxyAgent,
 * EnvHttpProxyAgent, MockAgent, Pool); `compose()`d interceptors (retry, DNS, cache), which wrap
 * its `dispatch`; a connection factory of its own; TLS or connect options (`connect`, `tls`),
 * or Node 20's `interceptors`. Tuning options (keep-alive, pipelining) do not change where a
 * request goes or whom it trusts, so they do not count. undici keeps an Agent's options and
 * factory under symbols described `options` and `factory`.
 */
function isDefaultAgent(dispatcher: unknown): boolean {
  if (typeof dispatcher !== 'object' || dispatcher === null) return false;
  const agent = dispatcher as { constructor?: { name?: string }; dispatch?: unknown } & Record<
    symbol,
    unknown
  >;
  if (agent.constructor?.name !== 'Agent' || agent.dispatch !== inheritedDispatch(agent)) return false;
  let options: Record<string, unknown> | undefined;
  let factory: unknown;
  for (const key of Object.getOwnPropertySymbols(agent)) {
    if (key.description === 'options') options = agent[key] as Record<string, unknown> | undefined;
    else if (key.description === 'factory') factory = agent[key];
  }
  return (
    typeof options === 'object' &&
    options !== null &&
    options.connect === undefined &&
    options.tls === undefined &&
    options.interceptors === undefined &&
    (factory === undefined || (typeof factory === 'function' && factory.name === 'defaultFactory'))
  );
}

function inheritedDispatch(object: object): unknown {
  for (let proto = Object.getPrototypeOf(object); proto !== null; proto = Object.getPrototypeOf(proto)) {
    if (Object.hasOwn(proto, 'dispatch')) return (proto as { dispatch: unknown }).dispatch;
  }
  return undefined;
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
