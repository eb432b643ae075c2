import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler, Router } from 'express';
import { AppError } from '../errors.js';
import { createRouter } from './app.js';
import { sendError } from './errors-middleware.js';

const RENDERER = 'redoc.standalone.js';

/**
 * Redoc's sidebar footer ("API docs by Redocly") loads its logo from Redocly's CDN, which has no
 * option to turn off and which this page's own CSP refuses: a console error on every load, and a
 * request that would leave the machine if the CSP allowed it. The renderer is served with that one
 * URL pointing at a small mark of our own instead, so the page stays on its origin.
 */
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const LOGO_PATH = '/docs/logo-mini.svg';
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16" width="16" height="16"><path fill="#5f6b7a" d="M3 1h7l3 3v11H3z"/><path fill="#fff" d="M5 7h6v1H5zm0 2h6v1H5zm0 2h4v1H5z"/></svg>';

/**
 * The renderer's text, read once, with the CDN logo swapped for ours. A Redoc upgrade that
 * moved the URL would bring the CDN request back; the browser test of /docs
 * (test/platform/api-reference-browser.test.ts) fails then.
 */
const loadRenderer = (path: string) => readFileSync(path, 'utf8').replaceAll(CDN_LOGO, LOGO_PATH);

/**
 * Where Redoc's standalone bundle is: `dist/assets` in the published package (copied at build
 * time by scripts/copy-assets.mjs), or the `redoc` dev dependency when running from source.
 */
function rendererPath(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, 'assets', RENDERER);
  if (existsSync(built)) return built;
  try {
    return createRequire(import.meta.url).resolve(`redoc/bundles/${RENDERER}`);
  } catch {
    return null;
  }
}

/**
 * The page may run only our own script and fetch only our own document: no CDN, no fonts from
 * elsewhere, nothing the machine's network must reach. Redoc injects its styles and runs its
 * search index in a worker made from a blob URL.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  'worker-src blob:',
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/**
 * `GET /docs`: a rendered API reference of the service's own OpenAPI document, served from
 * the server itself so it works offline. `GET /docs/redoc.standalone.js` is the renderer.
 */
export function apiReference(opts: { title: string; specPath: string; guard?: RequestHandler }): Router {
  const router = createRouter();
  const scriptPath = rendererPath();
  let script: string | null = null;
  const guard = opts.guard ? [opts.guard] : [];

  // The empty icon keeps the browser from asking for /favicon.ico, a 404 in the console.
  router.get('/docs', ...guard, (_req, res) => {
    res
      .status(200)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': CSP,
        'Referrer-Policy': 'same-origin',
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'no-cache',
      })
      .send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(opts.title)}</title>
<link rel="icon" href="data:,">
</head>
<body style="margin:0">
<redoc spec-url="${escapeHtml(opts.specPath)}" hide-download-button="false" path-in-middle-panel="true"></redoc>
<script src="/docs/${RENDERER}"></script>
</body>
</html>
`);
  });

  router.get(`/docs/${RENDERER}`, ...guard, (req, res) => {
    if (!scriptPath) {
      return sendError(
        req,
        res,
        new AppError(
          503,
          'API_REFERENCE_UNAVAILABLE',
          'The API reference renderer is missing from this install; reinstall @svc/server. The OpenAPI document is at /v1/openapi.json.',
        ),
      );
    }
    script ??= loadRenderer(scriptPath);
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=86400' });
    res.type('application/javascript').send(script);
  });

  router.get(LOGO_PATH, ...guard, (_req, res) => {
    res
      .set({
        'Content-Type': 'image/svg+xml',
        // Opened on its own, an SVG is a document: this one may run and load nothing.
        'Content-Security-Policy': "default-src 'none'",
        'X-Content-Type-Options': 'nosniff',
        'Cache-Control': 'public, max-age=86400',
      })
      .send(LOGO_SVG);
  });
  return router;
}
