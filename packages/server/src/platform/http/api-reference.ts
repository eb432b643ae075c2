import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler, Router } from 'express';
import { AppError } from '../errors.js';
import { createRouter } from './app.js';
import { sendError } from './errors-middleware.js';

const RENDERER = 'redoc.standalone.js';

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
  const script = rendererPath();
  const guard = opts.guard ? [opts.guard] : [];

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
</head>
<body style="margin:0">
<redoc spec-url="${escapeHtml(opts.specPath)}" hide-download-button="false" path-in-middle-panel="true"></redoc>
<script src="/docs/${RENDERER}"></script>
</body>
</html>
`);
  });

  router.get(`/docs/${RENDERER}`, ...guard, (req, res) => {
    if (!script) {
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
    res.set({ 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'public, max-age=86400' });
    // The dev dependency lives under node_modules/.pnpm, which send() treats as a dotfile path.
    res.type('application/javascript').sendFile(script, { dotfiles: 'allow' });
  });
  return router;
}
