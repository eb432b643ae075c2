import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { Agent, Pool } from 'undici';
import { AppError } from '../errors.js';
import { isBlockedAddress, judgeAddress, parseIp } from './blocked-addresses.js';
import { BodyTooLargeError, declaredOver } from './capped-body.js';

export { isBlockedAddress, judgeAddress };

const INTERNAL_SUFFIXES = [
  '.local',
  '.internal',
  '.localhost',
  '.localdomain',
  '.home.arpa',
  '.lan',
  '.intranet',
  '.corp',
];

export interface PublicUrlOptions {
  /** Operator escape hatch for local development (SERVICE_WEBHOOK_ALLOW_PRIVATE=1). */
  allowPrivate: boolean;
  requireHttps?: boolean;
  /**
   * The setting that turns `allowPrivate` on (`SERVICE_WEBHOOK_ALLOW_PRIVATE`): a refusal names it,
   * since a developer trying a local URL otherwise cannot tell that a switch exists.
   */
  allowPrivateSetting?: string;
}

/**
 * The static half of the SSRF guard: scheme, credentials, internal names and literal IPs.
 * Names that resolve to private space are caught at connect time by `publicFetch`.
 */
export function checkPublicUrl(raw: string, opts: PublicUrlOptions): URL {
  const hint = opts.allowPrivateSetting
    ? ` For local development, start the server with ${opts.allowPrivateSetting}=1 to allow http:// and private addresses (never in production).`
    : '';
  const notAllowed = (message: string, fixedBy = hint) =>
    new AppError(400, 'URL_NOT_ALLOWED', `${message}${fixedBy}`, { param: 'url' });
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError(400, 'INVALID_URL', `'${raw.slice(0, 200)}' is not an absolute URL.`, {
      param: 'url',
    });
  }
  const httpsOnly = opts.requireHttps && !opts.allowPrivate;
  if (url.protocol !== 'https:' && (httpsOnly || url.protocol !== 'http:')) {
    throw notAllowed(httpsOnly ? 'The URL must use https.' : 'The URL must use http or https.');
  }
  if (url.username || url.password) throw notAllowed('URLs with credentials are not accepted.', '');
  if (opts.allowPrivate) return url;

  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const bare = host.replace(/^\[|\]$/g, '');
  if (parseIp(bare)) {
    const verdict = judgeAddress(bare);
    if (verdict.blocked) {
      const carried = verdict.embeddedIpv4 ? ` (it carries the IPv4 address ${verdict.embeddedIpv4})` : '';
      throw notAllowed(`${bare} is a private, loopback or reserved address${carried}.`);
    }
    return url;
  }
  if (host === 'localhost' || INTERNAL_SUFFIXES.some((s) => host.endsWith(s))) {
    throw notAllowed(`'${host}' is an internal hostname.`);
  }
  if (!host.includes('.')) throw notAllowed(`'${host}' is not a public hostname.`);
  // Numeric forms like 2130706433 or 0x7f.1 are IPs to a resolver even though they are not dotted quads.
  if (/^[0-9.]+$/.test(host) || /^0x[0-9a-f]+$/i.test(host))
    throw notAllowed(`'${host}' is not a public hostname.`);
  return url;
}

type Lookup = typeof dnsLookup;

/**
 * A DNS lookup that refuses blocked addresses. The socket connects to exactly the address this
 * returns, so a name cannot pass the check and then re-resolve to 127.0.0.1 (DNS rebinding).
 */
export function guardedLookup(allowPrivate: boolean, lookup: Lookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = (Array.isArray(addresses) ? addresses : []) as LookupAddress[];
      const allowed = allowPrivate ? list : list.filter((a) => !isBlockedAddress(a.address));
      if (allowed.length === 0) {
        const error = Object.assign(
          new Error(`${hostname} resolves only to private or reserved addresses.`),
          {
            code: 'EBLOCKEDADDRESS',
          },
        );
        return callback(error, '', 0);
      }
      if (options.all) return (callback as (e: null, a: LookupAddress[]) => void)(null, allowed);
      const first = allowed[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

export interface PublicFetchInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  allowPrivate: boolean;
  requireHttps?: boolean;
  timeoutMs: number;
  /** Larger bodies fail while streaming with `BodyTooLargeError`. */
  maxBytes?: number;
  signal?: AbortSignal;
  /** Injectable DNS for tests. */
  lookup?: Lookup;
}

export { BodyTooLargeError };

/**
 * undici is loaded on the first outbound request, not at start: its import was a tenth of a cold
 * start's CPU, and a server with no webhook endpoints or media URLs never needs it.
 */
let loading: Promise<typeof import('undici')> | null = null;
const loadUndici = () => {
  loading ??= import('undici');
  return loading;
};

/** Resolves once outbound requests can be made (undici loaded): a deadline made after it counts no import time. */
export const outboundReady = (): Promise<unknown> => loadUndici();

const agents = new Map<string, Agent>();

function agentFor(
  { Agent }: typeof import('undici'),
  allowPrivate: boolean,
  lookup: Lookup | undefined,
): Agent {
  const key = `${allowPrivate}`;
  if (lookup) return new Agent({ connect: { lookup: guardedLookup(allowPrivate, lookup) } });
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(allowPrivate) }, keepAliveTimeout: 4_000 });
    agents.set(key, agent);
  }
  return agent;
}

/**
 * Connections kept to one endpoint (origin, path and query) for `publicStatus`: as many as the
 * caller has requests in flight to it at most (`connections`, the dispatcher's per-endpoint limit),
 * so each request in flight has a connection and no more are made. The caller's limit is the one
 * number: this pool's size was a second constant that had to be changed with the dispatcher's (a
 * test checked that they agreed); fewer connections than attempts made attempts queue for one.
 * An unbounded pool (the Agent's default) opened a connection for nearly every request of a burst:
 * a connection that has just answered is not handed out again until the next turn of the event
 * loop, so a step that sends as others finish found none free and opened more (480 connections
 * for 240 in flight). Per endpoint rather than per origin so that a path that hangs holds only its
 * own connections, never those of another endpoint on the same host.
 */
const endpointPools = new Map<string, Pool>();

function endpointPool(
  { Pool }: typeof import('undici'),
  url: URL,
  allowPrivate: boolean,
  lookup: Lookup | undefined,
  connections: number,
): Pool {
  // The guarded lookup runs on every new connection, so each is checked and pinned as before.
  const make = () =>
    new Pool(url.origin, {
      connections,
      connect: { lookup: guardedLookup(allowPrivate, lookup) },
      keepAliveTimeout: 4_000,
      // A receiver's `Keep-Alive: timeout=` is followed only up to here (undici's own cap is 10
      // min): a receiver, anyone's URL, cannot make an instance hold its idle sockets longer.
      keepAliveMaxTimeout: 30_000,
    });
  if (lookup) return make();
  // The query is part of the endpoint: a receiver may route by it (`?merchant=`), so two
  // endpoints that differ only there must not share connections either.
  // The size too: a pool is never shared by callers that expect different limits.
  const key = `${allowPrivate} ${connections} ${url.origin}${url.pathname}${url.search}`;
  const known = endpointPools.get(key);
  if (known) return known;
  const made = make();
  // Forgotten once it holds no connection (idle ones close after the keep-alive), as undici's Agent
  // does with its pools, so endpoints that are gone or quiet keep nothing.
  let open = 0;
  const forgetIfUnused = () => {
    if (open > 0 || endpointPools.get(key) !== made) return;
    endpointPools.delete(key);
    made.close().catch(() => undefined);
  };
  made.on('connect', () => (open += 1));
  made.on('disconnect', () => {
    open -= 1;
    forgetIfUnused();
  });
  made.on('connectionError', forgetIfUnused);
  endpointPools.set(key, made);
  return made;
}

/**
 * fetch for URLs that users give us (webhook endpoints, media from-url). Checks the URL,
 * resolves DNS at request time, refuses private addresses, pins the connection to the checked
 * address, and never follows redirects: a 3xx comes back as it is.
 */
export async function publicFetch(rawUrl: string, init: PublicFetchInit): Promise<Response> {
  const url = checkPublicUrl(rawUrl, {
    allowPrivate: init.allowPrivate,
    requireHttps: init.requireHttps ?? false,
  });
  const timeout = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
  const undici = await loadUndici();
  const res = await undici.fetch(url, {
    method: init.method ?? 'GET',
    ...(init.headers ? { headers: init.headers } : {}),
    ...(init.body === undefined ? {} : { body: init.body }),
    redirect: 'manual',
    signal,
    dispatcher: agentFor(undici, init.allowPrivate, init.lookup),
  });
  const response = res as unknown as Response;
  if (init.maxBytes === undefined) return response;
  const declared = declaredOver(response, init.maxBytes);
  if (declared !== null) {
    await response.body?.cancel();
    throw new BodyTooLargeError(`The response is ${declared} bytes; the limit is ${init.maxBytes}.`);
  }
  return limitBody(response, init.maxBytes);
}

/**
 * A request to a user-given URL when only the answer's status matters (webhook deliveries): the
 * same URL check, DNS guard, pinning and no-redirect rule as `publicFetch` (a bare dispatch
 * follows nothing: a 3xx is its status). It goes through undici's `dispatch` with a handler of
 * its own rather than `request`: `request` builds an async resource, a body stream and a promise
 * chain for every answer, and that was a third of each delivery's sending CPU for a status code
 * and a body to throw away. The body is counted as it arrives and the request cut off past
 * `maxBytes`; a status already received still counts, as before.
 *
 * `signal` (optional) ends the request when it aborts, so attempts started together can share one
 * deadline (one timer) instead of a timer each; without it the request gets `timeoutMs` of its own.
 * Either way the deadline covers the whole exchange, not each read, so an endpoint trickling its
 * answer cannot hold a slot past it. Requests to one endpoint share at most `connections`
 * kept-alive connections: the caller's own limit of requests in flight to it.
 */
export async function publicStatus(
  rawUrl: string,
  init: Omit<PublicFetchInit, 'signal'> & { method: string; signal?: AbortSignal; connections: number },
): Promise<number> {
  const url = checkPublicUrl(rawUrl, {
    allowPrivate: init.allowPrivate,
    requireHttps: init.requireHttps ?? false,
  });
  const undici = await loadUndici();
  const signal = init.signal ?? AbortSignal.timeout(init.timeoutMs);
  signal.throwIfAborted();
  const maxBytes = init.maxBytes ?? 64 * 1024;
  return new Promise<number>((resolve, reject) => {
    let status = 0;
    let seen = 0;
    let controller: { abort(reason: Error): void } | null = null;
    // Before the request reaches a socket there is nothing to abort yet: its start checks the signal.
    const onAbort = () => controller?.abort(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = (err: Error | null) => {
      signal.removeEventListener('abort', onAbort);
      if (status !== 0) resolve(status);
      else reject(err);
    };
    endpointPool(undici, url, init.allowPrivate, init.lookup, init.connections).dispatch(
      {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: init.method as 'POST',
        headers: init.headers ?? null,
        body: init.body ?? null,
      },
      {
        onRequestStart(c) {
          controller = c;
          if (signal.aborted) c.abort(signal.reason as Error);
        },
        onResponseStart(_c, statusCode) {
          // 1xx answers come before the final one; only the final status is kept.
          if (statusCode >= 200) status = statusCode;
        },
        onResponseData(c, chunk) {
          seen += chunk.byteLength;
          if (seen > maxBytes)
            c.abort(new BodyTooLargeError(`The response is larger than ${maxBytes} bytes.`));
        },
        onResponseEnd: () => settle(null),
        onResponseError: (_c, err) => settle(err),
      },
    );
  });
}

function limitBody(res: Response, maxBytes: number): Response {
  if (!res.body) return res;
  let seen = 0;
  const limited = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes)
          controller.error(new BodyTooLargeError(`The response is larger than ${maxBytes} bytes.`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(limited, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * The code of a failed fetch, walking the cause chain: undici wraps connect errors, the DNS
 * guard's `EBLOCKEDADDRESS` among them, in a plain "fetch failed".
 */
export function fetchErrorCode(err: unknown): string | undefined {
  let e = err as { code?: unknown; cause?: unknown } | undefined;
  for (let i = 0; e && i < 5; i++, e = e.cause as typeof e) {
    if (typeof e.code === 'string') return e.code;
  }
  return undefined;
}
