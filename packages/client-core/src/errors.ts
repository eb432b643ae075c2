// One fixed class hierarchy, re-exported by each client under its own base name
// (`export { ApiError as CommerceApiError }`). Real classes — not classes made by a
// factory at run time — give clean `.d.ts` output, go-to-definition and `instanceof`
// narrowing in editors. Because tsup bundles this package into each client, every
// client still carries its own copy of these classes.
//
// Names are set on the prototype (not with `this.name = new.target.name`) so they
// survive minification by a user's bundler and don't show up as an own property in
// `console.log(error)`.

import type { ResponseHead } from './transport.js';

export interface ApiErrorInit {
  status?: number | undefined;
  code?: string | null | undefined;
  requestId?: string | null | undefined;
  headers?: Headers | undefined;
  body?: unknown;
  cause?: unknown;
}

/** Base of every error a client rejects with, so one `instanceof` check catches them all. */
export class ApiError extends Error {
  static {
    ApiError.prototype.name = 'ApiError';
  }

  /** HTTP status; `undefined` when no response was received (connection, timeout, abort, ...). */
  readonly status: number | undefined;
  /** The server's `error.code`, e.g. `NOT_FOUND`; `null` when the body had none (e.g. an HTML proxy page). */
  readonly code: string | null;
  /** `error.request_id` from the body, else the `Service-Request-Id` header. Quote it in support requests. */
  readonly requestId: string | null;
  readonly headers: Headers | undefined;
  /** The parsed JSON body, or the raw text when the body was not JSON. */
  readonly body: unknown;

  constructor(message: string, init: ApiErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code ?? null;
    this.requestId = init.requestId ?? null;
    this.headers = init.headers;
    this.body = init.body;
  }
}

export class BadRequestError extends ApiError {
  static {
    BadRequestError.prototype.name = 'BadRequestError';
  }
  declare readonly status: 400;
}

export class AuthenticationError extends ApiError {
  static {
    AuthenticationError.prototype.name = 'AuthenticationError';
  }
  declare readonly status: 401;
}

export class PermissionDeniedError extends ApiError {
  static {
    PermissionDeniedError.prototype.name = 'PermissionDeniedError';
  }
  declare readonly status: 403;
}

export class NotFoundError extends ApiError {
  static {
    NotFoundError.prototype.name = 'NotFoundError';
  }
  declare readonly status: 404;
}

export class ConflictError extends ApiError {
  static {
    ConflictError.prototype.name = 'ConflictError';
  }
  declare readonly status: 409;
}

export class UnprocessableEntityError extends ApiError {
  static {
    UnprocessableEntityError.prototype.name = 'UnprocessableEntityError';
  }
  declare readonly status: 422;
}

export class RateLimitError extends ApiError {
  static {
    RateLimitError.prototype.name = 'RateLimitError';
  }
  declare readonly status: 429;
}

export class InternalServerError extends ApiError {
  static {
    InternalServerError.prototype.name = 'InternalServerError';
  }
  declare readonly status: number;
}

/** No response: DNS failure, refused or reset connection, CORS rejection, ... */
export class ConnectionError extends ApiError {
  static {
    ConnectionError.prototype.name = 'ConnectionError';
  }
  declare readonly status: undefined;
}

/** A subclass of ConnectionError because both mean "no response arrived" and are retried alike. */
export class TimeoutError extends ConnectionError {
  static {
    TimeoutError.prototype.name = 'TimeoutError';
  }
  constructor(message = 'Request timed out.', init: ApiErrorInit = {}) {
    super(message, init);
  }
}

/**
 * The response body was larger than `maxResponseBytes`. Never retried: the same server or proxy
 * would most likely send it again, and reading it once already cost as much as the client allows.
 * The body was cancelled (its connection freed) as soon as the cap was passed, so `body` is
 * undefined; `status`, `headers` and `requestId` are the response's.
 */
export class ResponseTooLargeError extends ApiError {
  static {
    ResponseTooLargeError.prototype.name = 'ResponseTooLargeError';
  }
  /** The cap that was passed, in bytes. */
  readonly maxResponseBytes: number;
  constructor(message: string, init: ApiErrorInit & { maxResponseBytes?: number } = {}) {
    super(message, init);
    this.maxResponseBytes = init.maxResponseBytes ?? 0;
  }
}

/** The caller's AbortSignal fired. Never retried. The signal's reason is the `cause`. */
export class APIUserAbortError extends ApiError {
  static {
    APIUserAbortError.prototype.name = 'APIUserAbortError';
  }
  declare readonly status: undefined;
  constructor(message = 'Request was aborted.', init: ApiErrorInit = {}) {
    super(message, init);
  }
}

/**
 * A user-scoped endpoint was called on a client without a user token. Raised before
 * anything is sent, so it is a caller mistake, not a server answer; it still extends
 * ApiError so that "catch the client's base error" stays a complete catch.
 */
export class MissingUserTokenError extends ApiError {
  static {
    MissingUserTokenError.prototype.name = 'MissingUserTokenError';
  }
  declare readonly status: undefined;
}

/** `poll()` ran out of time. `lastValue` is the last thing the getter returned. */
export class PollTimeoutError<T = unknown> extends ApiError {
  static {
    PollTimeoutError.prototype.name = 'PollTimeoutError';
  }
  declare readonly status: undefined;
  readonly lastValue: T | undefined;
  constructor(message: string, lastValue: T | undefined) {
    super(message);
    this.lastValue = lastValue;
  }
}

type ApiErrorClass = new (message: string, init?: ApiErrorInit) => ApiError;

/**
 * `GET http://host/v1/path`, naming a request in an error message. The query may carry values
 * the caller would not want in a log line; the path is enough to act on. Built only when an
 * error is: every call would otherwise pay for the split.
 */
export function requestLabel(method: string, url: string): string {
  return `${method} ${url.split('?')[0] as string}`;
}

function classForStatus(status: number): ApiErrorClass {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 422:
      return UnprocessableEntityError;
    case 429:
      return RateLimitError;
    default:
      return status >= 500 ? InternalServerError : ApiError;
  }
}

const SNIPPET_LENGTH = 200;

interface ErrorEnvelope {
  code: string | null;
  message: string | null;
  requestId: string | null;
}

function readEnvelope(body: unknown): ErrorEnvelope | null {
  if (typeof body !== 'object' || body === null) return null;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return null;
  const { code, message, request_id } = error as Record<string, unknown>;
  return {
    code: typeof code === 'string' ? code : null,
    message: typeof message === 'string' ? message : null,
    requestId: typeof request_id === 'string' ? request_id : null,
  };
}

/** Parses an error body as JSON when it is JSON; proxies and load balancers answer with HTML. */
export function parseErrorBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A redirect the client did not follow (`redirect: 'manual'`); browsers hide it as `opaqueredirect`. */
function isRedirect(response: ResponseHead): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

function redirectMessage(response: ResponseHead): string {
  const location = response.headers.get('location');
  const where = location ? ` to ${location}` : '';
  return `${response.status || 'Redirect'}${where} was not followed: the client sends its API key and user token only to its baseURL. Set baseURL to the address the API answers on${location ? ' (an https:// address, if that is what the redirect names)' : ''}.`;
}

/** Maps a non-2xx response to the matching typed error. `body` is already parsed (see parseErrorBody). */
export function apiErrorFromResponse(response: Response, body: unknown): ApiError {
  return apiErrorFromHead(response, body);
}

/** The same from a response's head, whichever transport received it. */
export function apiErrorFromHead(response: ResponseHead, body: unknown): ApiError {
  const { status, headers } = response;
  const envelope = readEnvelope(body);
  const requestId = envelope?.requestId ?? headers.get('service-request-id');
  let message: string;
  if (envelope) {
    const detail = [envelope.code, envelope.message].filter(Boolean).join(': ');
    message = `${status} ${detail || response.statusText || 'error'}`;
  } else {
    const raw = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
    const snippet = raw.replace(/\s+/g, ' ').trim().slice(0, SNIPPET_LENGTH);
    const statusLine = `${status}${response.statusText ? ` ${response.statusText}` : ''}`;
    message = snippet
      ? `${statusLine} (unexpected response body): ${snippet}`
      : `${statusLine} (no response body)`;
  }
  if (isRedirect(response)) message = redirectMessage(response);
  const ErrorClass = classForStatus(status);
  return new ErrorClass(message, { status, code: envelope?.code ?? null, requestId, headers, body });
}
