import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';

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

/** Maps body-parser's failures to our own codes instead of its HTML page. */
function fromBodyParser(err: { type?: string; status?: number; limit?: number }): AppError | null {
  switch (err.type) {
    case 'entity.parse.failed':
      return new AppError(400, 'INVALID_JSON', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return new AppError(
        413,
        'PAYLOAD_TOO_LARGE',
        `The request body is larger than the limit of ${err.limit ?? 'the configured'} bytes.`,
      );
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be UTF-8 JSON.');
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
    const known = err instanceof AppError ? err : fromBodyParser(err ?? {});
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
