import type { Request, RequestHandler } from 'express';
import { AppError } from '../errors.js';
import { sendError } from './errors-middleware.js';

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

export function localOnly(opts: {
  enabled: boolean;
  isPublicPath: (path: string) => boolean;
}): RequestHandler {
  return (req, res, next) => {
    if (!opts.enabled || opts.isPublicPath(req.path) || isLocalRequest(req)) return next();
    sendError(
      req,
      res,
      new AppError(
        403,
        'LOCAL_ONLY',
        'This endpoint answers only requests made on the machine the server runs on. Set SERVICE_PUBLIC_API=all to expose it behind your own authentication.',
      ),
    );
  };
}

/**
 * CSRF guard for an API that trusts "local" requests without credentials: a page on another
 * origin must not be able to drive it through the person's browser. Browsers always send
 * `Origin` on cross-origin POSTs and `Sec-Fetch-Site` on modern engines.
 */
export function sameOriginOnly(opts: { appliesTo?: (path: string) => boolean } = {}): RequestHandler {
  return (req, res, next) => {
    if (opts.appliesTo && !opts.appliesTo(req.path)) return next();
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site' || site === 'same-site') {
      return sendError(req, res, crossOrigin(`Sec-Fetch-Site: ${site}`));
    }
    const origin = req.headers.origin;
    if (origin === undefined) return next();
    let originHost: string;
    try {
      const url = new URL(origin);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
      originHost = url.host.toLowerCase();
    } catch {
      return sendError(req, res, crossOrigin(`Origin: ${origin}`));
    }
    if (originHost !== (req.headers.host ?? '').toLowerCase()) {
      return sendError(req, res, crossOrigin(`Origin: ${origin}`));
    }
    next();
  };
}

const crossOrigin = (what: string) =>
  new AppError(
    403,
    'CROSS_ORIGIN_REQUEST',
    `Cross-origin requests are refused (${what}). Call this API from the same origin or from a server.`,
  );
