import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type RequestHandler, type Router } from 'express';
import { AppError } from '../platform/errors.js';
import { createRouter, sendError } from '../platform/http/index.js';

/**
 * Where the built web app (@svc/app) is: `dist/app` in the published package (copied at build
 * time by scripts/copy-assets.mjs), or packages/app/dist when running from source.
 */
function appDir(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [join(here, 'app'), join(here, '../../../app/dist')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? null;
}

/**
 * The app runs only its own scripts and styles and talks only to its own origin: no CDN and
 * nothing the machine's network must reach. Media previews may be data: or blob: URLs.
 */
export const WEB_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * First path segments that belong to the server, not to the app: an unknown path under them
 * stays a JSON 404 (`/v1/nope`, `/HEALTH`, `//v1/x`), so API users never get a page of HTML.
 */
const SERVER_PATHS = new Set(['v1', 'mcp', 'media', 'health', 'docs', 'oauth', 'assets', '.well-known']);

const firstSegment = (path: string) => (path.split('/').find((s) => s !== '') ?? '').toLowerCase();

/**
 * A path the app can be asked to show: one or more non-empty segments of URL path characters
 * (letters of either case, since ids such as `post_4fW9…` have capitals), with an optional
 * trailing slash. The app decides what it shows, including its own "Page not found" for
 * `/Approvals` or `/nope`. Not a page: an empty segment (`//approvals`, which a proxy may read
 * as another path), a dot segment (`/./approvals`, `/x/..`), or a percent-escape that does not
 * decode (`/%E0%A4%A`), which the app could not match without throwing. The character class
 * excludes `/` and `%`, so the pattern cannot backtrack.
 */
const APP_PAGE = /^(?:\/(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})+)+\/?$/;
const DOT_SEGMENT = /\/\.{1,2}(?:\/|$)/;
function isAppPage(path: string): boolean {
  if (path === '/') return true;
  if (!APP_PAGE.test(path) || DOT_SEGMENT.test(path)) return false;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * `GET /`: the person's web app, behind the same guard as the REST API it uses. Its hashed
 * files are under `/assets/`; every other GET that asks for HTML by name, for a well-formed path
 * outside the server's own paths, is one of the app's client-side pages (e.g. `/approvals`,
 * `/posts/post_4fW9…`) and gets index.html; the app says "Page not found" for one it does not know.
 * Mount it after the API routes: it only answers what they did not.
 */
/**
 * A browser opening a page asks for `text/html` by name; API clients, curl and fetch() send
 * `*\/*` or JSON. Only the former get the app for an unknown path, so a mistyped API path stays
 * an honest JSON 404 (an OAuth client probing `/register` included).
 */
const navigates = (req: Request) => /\btext\/html\b/.test(req.headers.accept ?? '');

export function webApp(opts: { guard: RequestHandler }): Router {
  const router = createRouter();
  /** Found on first use, so an app built after the server started is picked up. */
  let built: { assets: RequestHandler; indexHtml: string } | null = null;
  const locate = () => {
    if (built) return built;
    const dir = appDir();
    if (!dir) return null;
    built = {
      // The built files have content hashes in their names: one URL never changes.
      assets: express.static(join(dir, 'assets'), {
        index: false,
        redirect: false,
        immutable: true,
        maxAge: '365d',
        setHeaders: (res) => res.setHeader('X-Content-Type-Options', 'nosniff'),
      }),
      indexHtml: readFileSync(join(dir, 'index.html'), 'utf8'),
    };
    return built;
  };
  const unavailable = () =>
    new AppError(
      503,
      'APP_UNAVAILABLE',
      'The web app is missing from this install; reinstall @svc/server (in a checkout, run `pnpm run build`). The REST API is at /v1 and its reference at /docs.',
    );

  router.use('/assets', opts.guard, (req, res, next) => {
    const app = locate();
    if (!app) return sendError(req, res, unavailable());
    app.assets(req, res, next);
  });

  router.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // `/` is the app for everyone; a deeper page only for a browser navigating to it.
    const page = req.path === '/' || (isAppPage(req.path) && navigates(req));
    if (!page || SERVER_PATHS.has(firstSegment(req.path))) return next();
    opts.guard(req, res, (err?: unknown) => {
      if (err) return next(err);
      const app = locate();
      if (!app) return sendError(req, res, unavailable());
      res
        .status(200)
        .set({
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': WEB_APP_CSP,
          'Referrer-Policy': 'same-origin',
          'X-Content-Type-Options': 'nosniff',
          'Cache-Control': 'no-cache',
        })
        .send(app.indexHtml);
    });
  });
  return router;
}
