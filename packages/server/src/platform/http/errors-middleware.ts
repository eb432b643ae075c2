import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';

/** Every REST error body, exactly (docs/content/errors.md, docs/commerce/errors.md). */
export const ErrorBody = z.strictObject({
  error: z.strictObject({
    code: z.string(),
    message: z.string(),
    param: z.string().optional(),
    request_id: z.string(),
  }),
});

export function sendError(req: Request, res: Response, err: AppError): void {
  if (err.headers) res.set(err.headers);
  res.status(err.status).json({
    error: {
      code: err.code,
      message: err.message,
      ...(err.param === undefined ? {} : { param: err.param }),
      request_id: req.requestId,
    },
  });
}

/**
 * Maps the failures of express and its parsers to our own codes instead of a 500: the router's
 * URIError for a malformed percent-escape in a path parameter (raised while matching, so
 * before any authentication), and body-parser's errors for the urlencoded forms of the HTML
 * pages (the JSON API reads its bodies itself, see body.ts).
 */
export function fromFrameworkError(req: Request, thrown: unknown): AppError | null {
  if (typeof thrown !== 'object' || thrown === null) return null;
  const err = thrown as { type?: string; status?: number; limit?: number };
  if (err instanceof URIError && err.status === 400) {
    return new AppError(
      400,
      'INVALID_REQUEST',
      `The path ${req.path} has a malformed percent-escape: every '%' must start a valid UTF-8 escape such as '%20'.`,
      { param: 'path' },
    );
  }
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'INVALID_REQUEST', 'The form could not be read.');
    case 'entity.too.large':
      return new AppError(
        413,
        'PAYLOAD_TOO_LARGE',
        `The request body is larger than the limit of ${err.limit ?? 'the configured'} bytes.`,
      );
    case 'parameters.too.many':
      return new AppError(413, 'PAYLOAD_TOO_LARGE', 'The form has more fields than it can have.');
    case 'encoding.unsupported':
      return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Compressed request bodies are not accepted.');
    case 'charset.unsupported':
      return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8.');
    case 'request.aborted':
      return new AppError(400, 'REQUEST_ABORTED', 'The client closed the request before the body arrived.');
    default:
      return null;
  }
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (res.headersSent) {
      res.end();
      return;
    }
    const known = err instanceof AppError ? err : fromFrameworkError(req, err);
    if (known) {
      sendError(req, res, known);
      return;
    }
    logger.error({ err, requestId: req.requestId, method: req.method, path: req.path }, 'unhandled error');
    sendError(
      req,
      res,
      new AppError(
        500,
        'INTERNAL_ERROR',
        'Something went wrong on our side. Quote the request id when reporting it.',
      ),
    );
  };
}

/**
 * Where OAuth clients look for an authorization server. An MCP client whose API key is refused
 * (401) falls back to OAuth, and this 404's body is the only text of ours its user sees
 * (mcp-remote prints it), so it says what actually went wrong.
 */
const OAUTH_PATH =
  /^\/(?:\.well-known\/(?:oauth-authorization-server|oauth-protected-resource|openid-configuration)(?:\/.*)?|register|authorize|token)\/?$/i;

export function notFoundHandler(): RequestHandler {
  return (req, res) => {
    const message = OAUTH_PATH.test(req.path)
      ? `No route for ${req.method} ${req.path}: this server does not use OAuth. Send an API key as 'Authorization: Bearer svc_...'. An MCP client that tries OAuth was refused its key (missing, unknown or revoked): check the key, or make one with 'svc-server keys create'.`
      : `No route for ${req.method} ${req.path}.`;
    sendError(req, res, new AppError(404, 'ROUTE_NOT_FOUND', message));
  };
}
