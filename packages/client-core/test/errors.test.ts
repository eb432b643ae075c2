import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  APIUserAbortError,
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  MissingUserTokenError,
  NotFoundError,
  PermissionDeniedError,
  PollTimeoutError,
  RateLimitError,
  TimeoutError,
  UnprocessableEntityError,
} from '../src/index.js';
import { BASE, errorBody, makeCore, server, useServer } from './helpers.js';

useServer();

async function failWith(response: () => Response): Promise<ApiError> {
  server.use(http.get(`${BASE}/thing`, response));
  const { core } = makeCore({ maxRetries: 0 });
  const error = await core.request({ method: 'GET', path: '/thing' }).catch((e: unknown) => e);
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('status → error class', () => {
  it.each([
    [400, BadRequestError, 'BadRequestError'],
    [401, AuthenticationError, 'AuthenticationError'],
    [403, PermissionDeniedError, 'PermissionDeniedError'],
    [404, NotFoundError, 'NotFoundError'],
    [409, ConflictError, 'ConflictError'],
    [422, UnprocessableEntityError, 'UnprocessableEntityError'],
    [429, RateLimitError, 'RateLimitError'],
    [500, InternalServerError, 'InternalServerError'],
    [503, InternalServerError, 'InternalServerError'],
    [415, ApiError, 'ApiError'],
  ])('%i becomes %o', async (status, ErrorClass, name) => {
    const error = await failWith(() =>
      HttpResponse.json(errorBody('SOME_CODE', 'Something went wrong', 'req_abc'), {
        status,
        headers: { 'Service-Request-Id': 'req_abc', 'X-Extra': '1' },
      }),
    );
    expect(error.constructor).toBe(ErrorClass);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.status).toBe(status);
    expect(error.code).toBe('SOME_CODE');
    expect(error.requestId).toBe('req_abc');
    expect(error.message).toBe(`${status} SOME_CODE: Something went wrong`);
    expect(error.headers?.get('x-extra')).toBe('1');
    expect(error.body).toEqual(errorBody('SOME_CODE', 'Something went wrong', 'req_abc'));
    expect(String(error.stack)).toContain(`${name}: ${status} SOME_CODE`);
    // name lives on the prototype, so logs stay clean.
    expect(Object.keys(error)).not.toContain('name');
  });
});

describe('request id', () => {
  it('prefers the body request_id', async () => {
    const error = await failWith(() =>
      HttpResponse.json(errorBody('NOT_FOUND', 'gone', 'req_from_body'), {
        status: 404,
        headers: { 'Service-Request-Id': 'req_from_header' },
      }),
    );
    expect(error.requestId).toBe('req_from_body');
  });

  it('falls back to the Service-Request-Id header', async () => {
    const error = await failWith(() =>
      HttpResponse.json(
        { error: { code: 'NOT_FOUND', message: 'gone' } },
        { status: 404, headers: { 'Service-Request-Id': 'req_from_header' } },
      ),
    );
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.requestId).toBe('req_from_header');
  });

  it('is null when neither is present', async () => {
    const error = await failWith(() =>
      HttpResponse.json({ error: { code: 'X', message: 'y' } }, { status: 400 }),
    );
    expect(error.requestId).toBeNull();
  });
});

describe('non-JSON error bodies', () => {
  it('maps an HTML 502 from a proxy to InternalServerError with status and a snippet', async () => {
    const html = `<html>\n  <head><title>502 Bad Gateway</title></head>\n  <body><h1>Bad Gateway</h1>${'x'.repeat(500)}</body>\n</html>`;
    const error = await failWith(
      () =>
        new HttpResponse(html, {
          status: 502,
          statusText: 'Bad Gateway',
          headers: { 'content-type': 'text/html', 'Service-Request-Id': 'req_proxy' },
        }),
    );
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(502);
    expect(error.code).toBeNull();
    expect(error.requestId).toBe('req_proxy');
    expect(error.body).toBe(html);
    expect(error.message).toMatch(
      /^502 Bad Gateway \(unexpected response body\): <html> <head><title>502 Bad Gateway/,
    );
    expect(error.message.length).toBeLessThan(300);
  });

  it('handles an empty error body', async () => {
    const error = await failWith(() => new HttpResponse(null, { status: 401, statusText: 'Unauthorized' }));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toBe('401 Unauthorized (no response body)');
    expect(error.body).toBeUndefined();
  });

  it('handles JSON that is not the error envelope', async () => {
    const error = await failWith(() => HttpResponse.json({ detail: 'nope' }, { status: 403 }));
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.code).toBeNull();
    expect(error.message).toContain('{"detail":"nope"}');
  });
});

describe('errors without a response', () => {
  it('share the base class and have no status', () => {
    const errors = [
      new ConnectionError('Connection error: refused'),
      new TimeoutError(),
      new APIUserAbortError(),
      new MissingUserTokenError('needs a user'),
      new PollTimeoutError('too slow', { status: 'pending' }),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(ApiError);
      expect(error.status).toBeUndefined();
      expect(error.requestId).toBeNull();
    }
    expect(errors.map((e) => e.name)).toEqual([
      'ConnectionError',
      'TimeoutError',
      'APIUserAbortError',
      'MissingUserTokenError',
      'PollTimeoutError',
    ]);
    expect(new TimeoutError()).toBeInstanceOf(ConnectionError);
  });
});
