/**
 * The one error type domain code throws. Routes never build error bodies themselves:
 * the error handler renders every AppError into `{ error: { code, message, request_id } }`.
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  /** The request field the error is about (Stripe's `param`), when there is one. */
  readonly param: string | undefined;
  /** Extra response headers, e.g. `WWW-Authenticate` or `Allow`. */
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    opts: { param?: string; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.param = opts.param;
    this.headers = opts.headers;
  }
}

export const notFound = (what: string, id?: string) =>
  new AppError(404, 'NOT_FOUND', id ? `No ${what} with id '${id}'.` : `${what} not found.`);

export const invalidRequest = (message: string, param?: string) =>
  new AppError(400, 'INVALID_REQUEST', message, param === undefined ? {} : { param });
