import type { Express, RequestHandler } from 'express';
import { AppError } from '../../platform/errors.js';
import { sendError } from '../../platform/http/index.js';
import type { MediaService } from './service.js';

/** What every /media response carries, errors included: nothing served here may run as a page. */
const SAFE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox",
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Referrer-Policy': 'no-referrer',
};

const FILE_NAME = /^[a-z]+(?:\.\d+)?\.[a-z0-9]+$/;
const missing = () => new AppError(404, 'NOT_FOUND', 'No such media file.');

/**
 * Public, read-only file serving at `/media/<asset id>/<file>`. The URL is looked up in the
 * asset's row; it is never joined onto a directory, so `..`, encoded slashes and directory
 * listings have nothing to reach. Crop file names change on every re-render, so files are
 * immutable and cacheable for a year.
 */
export function mountMediaFiles(app: Express, media: MediaService): void {
  const serve: RequestHandler = async (req, res, next) => {
    res.set(SAFE_HEADERS);
    const { assetId, file } = req.params as { assetId: string; file: string };
    if (!FILE_NAME.test(file)) return sendError(req, res, missing());
    try {
      const found = await media.resolveFile(assetId, file);
      if (!found) return sendError(req, res, missing());
      res.type(found.mime);
      // `root` confines the sender to the asset's directory (it refuses `..` and judges dotfiles
      // only below the root), so the data folder's own path, often `./.data`, never matters.
      res.sendFile(
        found.file,
        {
          root: found.dir,
          dotfiles: 'deny',
          acceptRanges: true,
          maxAge: '365d',
          immutable: true,
          lastModified: true,
        },
        (err) => {
          if (err && !res.headersSent) sendError(req, res, missing());
        },
      );
    } catch (err) {
      next(err);
    }
  };
  app.get('/media/:assetId/:file', serve);
  // Everything else under /media is a 404 in our error shape (and with the same headers), never a listing.
  app.use('/media', (req, res) => {
    res.set(SAFE_HEADERS);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendError(
        req,
        res,
        new AppError(405, 'METHOD_NOT_ALLOWED', 'Media files are read-only.', {
          headers: { Allow: 'GET, HEAD' },
        }),
      );
    }
    sendError(req, res, missing());
  });
}
