import type { Request, RequestHandler } from 'express';
import { AppError } from '../errors.js';
import { sendError } from './errors-middleware.js';
import type { AnyRoute } from './route.js';

/** Headers a proxy or tunnel adds. Their presence means the request did not start on this machine. */
const FORWARDING_HEADERS = [
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-port',
  'x-forwarded-server',
  'x-real-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'forwarded-for',
  'true-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-original-forwarded-for',
  'via',
];

const LOCAL_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

function isLoopbackAddress(addr: string | undefined): boolean {
  if (!addr) return false;
  const a = addr.startsWith('::ffff:') ? addr.slice(7) : addr;
  return a === '::1' || /^127(?:\.\d{1,3}){3}$/.test(a);
}

function hostnameOf(host: string | undefined): string | null {
  if (!host) return null;
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end === -1 ? null : h.slice(0, end + 1);
  }
  const colon = h.indexOf(':');
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * A request is local only when all three agree: the peer is loopback, the Host names this
 * machine, and no proxy says it forwarded the request. A tunnel (ngrok, cloudflared) connects
 * from loopback, so the peer address alone is not enough.
 */
export function isLocalRequest(req: Request): boolean {
  if (!isLoopbackAddress(req.socket.remoteAddress)) return false;
  const host = hostnameOf(req.headers.host);
  if (!host || !LOCAL_HOSTNAMES.has(host)) return false;
  return !FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined);
}

const trusted = new WeakSet<Request>();

export interface LocalTrustOptions {
  /**
   * Refuse requests that did not start on this machine. The content REST API turns it off
   * with SERVICE_PUBLIC_API=all; the commerce dashboard never does. The same-origin check
   * stays on either way.
   */
  localOnly: boolean;
  /** The LOCAL_ONLY message: each gate tells the person how to reach it. */
  message: string;
  /**
   * With `localOnly` off, the one public address clients use (CONTENT_PUBLIC_URL). Only its Host
   * and the loopback names are accepted then, so a DNS-rebound name cannot pass the same-origin
   * check below by sending an Origin that matches its own Host.
   */
  publicUrl?: string | undefined;
}

/** `Host` values a request may carry when the gate is off: the public URL's, with and without its default port. */
function allowedHosts(publicUrl: string | undefined): Set<string> {
  if (!publicUrl) return new Set();
  const url = new URL(publicUrl);
  const hosts = new Set([url.host.toLowerCase()]);
  if (url.port === '') hosts.add(`${url.hostname.toLowerCase()}:${url.protocol === 'https:' ? 443 : 80}`);
  return hosts;
}

/**
 * DNS rebinding: a page on `evil.example` whose name later resolves to this server sends
 * requests with `Host: evil.example` and `Origin: http://evil.example`, which look same-origin.
 * Naming the Hosts this server answers to closes that: the attacker cannot choose the Host.
 */
function hostRefusal(req: Request, allowed: ReadonlySet<string>): AppError | null {
  const host = (req.headers.host ?? '').trim().toLowerCase();
  const name = hostnameOf(host);
  if ((name && LOCAL_HOSTNAMES.has(name)) || allowed.has(host)) return null;
  return new AppError(
    403,
    'HOST_NOT_ALLOWED',
    allowed.size > 0
      ? `This API answers only at ${[...allowed][0]} (CONTENT_PUBLIC_URL) and on localhost; the request named Host '${host.slice(0, 100)}'.`
      : `This API answers only on localhost until CONTENT_PUBLIC_URL names its public address (SERVICE_PUBLIC_API=all); the request named Host '${host.slice(0, 100)}'.`,
  );
}

/**
 * The guard for everything that trusts a request because it is local, instead of asking for
 * credentials: the local-only gate, then the CSRF check. It is mounted on the very routes and
 * routers it protects (see `guardRoutes`), never matched against a path of its own, so it
 * cannot disagree with the router about which paths it covers.
 */
export function localTrustGuard(opts: LocalTrustOptions): RequestHandler {
  const hosts = allowedHosts(opts.publicUrl);
  return (req, res, next) => {
    const refusal = opts.localOnly
      ? isLocalRequest(req)
        ? crossOriginRefusal(req)
        : new AppError(403, 'LOCAL_ONLY', opts.message)
      : (hostRefusal(req, hosts) ?? crossOriginRefusal(req));
    if (refusal) return sendError(req, res, refusal);
    trusted.add(req);
    next();
  };
}

/**
 * For the authenticators that hand out the local identity: fails loudly when the request did
 * not pass `localTrustGuard`, so a route that trusts locality cannot be mounted unguarded.
 */
export function requireLocalTrust(req: Request): void {
  if (!trusted.has(req)) {
    throw new Error(
      `${req.method} ${req.originalUrl} trusts local requests but did not pass localTrustGuard; mount it with guardRoutes.`,
    );
  }
}

/**
 * Puts `guard` first on every route that declares `auth`, ahead of the route's own `before`
 * middleware (a multipart parser must not read a refused upload). Express runs it only once it
 * has matched the route, so every spelling of the path that reaches the handler ran the guard.
 */
export function guardRoutes<R extends AnyRoute>(
  routes: readonly R[],
  auth: string,
  guard: RequestHandler,
): R[] {
  return routes.map((r) => (r.auth === auth ? { ...r, before: [guard, ...(r.before ?? [])] } : r));
}

/**
 * CSRF: a page on another origin must not drive a local API through the person's browser.
 * Browsers send `Sec-Fetch-Site` (modern engines) and `Origin` on every cross-origin POST.
 * `Origin: null` (an opaque origin: a sandboxed frame, a `no-referrer` page, a redirect) proves
 * nothing, so it passes only when the browser itself says `Sec-Fetch-Site: same-origin`.
 * Requests with neither header come from programs, not from a page.
 */
export function crossOriginRefusal(req: Request): AppError | null {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return crossOrigin(`Sec-Fetch-Site: ${site}`);
  const origin = req.headers.origin;
  if (origin === undefined) return null;
  if (origin === 'null') return site === 'same-origin' ? null : crossOrigin('Origin: null');
  let originHost: string;
  try {
    const url = new URL(origin);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
    originHost = url.host.toLowerCase();
  } catch {
    return crossOrigin(`Origin: ${origin}`);
  }
  return originHost === (req.headers.host ?? '').toLowerCase() ? null : crossOrigin(`Origin: ${origin}`);
}

/**
 * For endpoints that anyone may reach with a credential (`/mcp`), where a browser has no business
 * unless it is on this server's own origin. The CSRF rules above first; then, when an `Origin` is
 * sent, it must be this server's own: `publicUrl` (CONTENT_PUBLIC_URL) or a loopback origin the
 * request's `Host` names. Matching `Host` alone is not enough here, because DNS rebinding makes a
 * page on `evil.example` send `Host: evil.example` to this machine. `Origin: null` is never this
 * server's origin. No `Origin` at all is a program (an MCP client), not a page, and passes.
 */
export function foreignOriginRefusal(req: Request, publicUrl: string | undefined): AppError | null {
  const refusal = crossOriginRefusal(req);
  const origin = req.headers.origin;
  if (refusal || origin === undefined) return refusal;
  if (publicUrl && origin.toLowerCase() === new URL(publicUrl).origin) return null;
  // crossOriginRefusal has already required Origin's host to equal Host (unless Origin is null).
  const host = hostnameOf(req.headers.host);
  if (origin !== 'null' && host && LOCAL_HOSTNAMES.has(host)) return null;
  return crossOrigin(`Origin: ${origin}`, publicUrl);
}

const crossOrigin = (what: string, publicUrl?: string) =>
  new AppError(
    403,
    'CROSS_ORIGIN_REQUEST',
    `Cross-origin requests are refused (${what}). Call this API from ${publicUrl ? `${new URL(publicUrl).origin} ` : 'the same origin '}or from a server.`,
  );
