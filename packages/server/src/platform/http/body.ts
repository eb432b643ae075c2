import express, { type RequestHandler } from 'express';
import { AppError } from '../errors.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding']) return true;
  return length !== undefined && length !== '0';
}

/**
 * JSON bodies only, within a size limit. A body with another content type is refused here
 * rather than silently ignored (which would also open the door to form-post CSRF).
 * Routes that take multipart opt out with `allowMultipart`.
 */
export function jsonBody(opts: {
  limitBytes: number;
  isMultipartRoute?: (req: Parameters<RequestHandler>[0]) => boolean;
}): RequestHandler[] {
  const parse = express.json({ limit: opts.limitBytes, strict: true, type: () => true });
  const guard: RequestHandler = (req, _res, next) => {
    if (!METHODS_WITH_BODY.has(req.method) || !hasBody(req)) return next();
    if (opts.isMultipartRoute?.(req)) return next();
    if (!req.is('application/json')) {
      return next(
        new AppError(
          415,
          'UNSUPPORTED_MEDIA_TYPE',
          "Send the request body as JSON with 'Content-Type: application/json'.",
        ),
      );
    }
    parse(req, _res, next);
  };
  return [guard];
}
