import { delay, HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  APIUserAbortError,
  type ApiError,
  AuthenticationError,
  BadRequestError,
  backoffDelay,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  parseRetryAfter,
  RateLimitError,
  sleep,
  TimeoutError,
  UnprocessableEntityError,
} from '../src/index.js';
import { BASE, errorBody, makeCore, seen, server, useServer } from './helpers.js';

useServer();

/** Answers with `failures` in order, then 200 `{ ok: true }` forever. */
function sequence(method: 'get' | 'post', path: string, failures: Array<() => Response | Promise<Response>>) {
  let call = 0;
  server.use(
    http[method](`${BASE}${path}`, () => {
      const next = failures[call++];
      return next ? next() : HttpResponse.json({ ok: true });
    }),
  );
}

const status =
  (code: number, body: object = errorBody('X', 'boom'), headers?: Record<string, string>) =>
  () =>
    HttpResponse.json(body, { status: code, ...(headers ? { headers } : {}) });

describe('which failures are retried', () => {
  it.each([
    ['409 IDEMPOTENCY_KEY_IN_USE', status(409, errorBody('IDEMPOTENCY_KEY_IN_USE', 'still running'))],
    ['429', status(429, errorBody('RATE_LIMITED', 'slow down'))],
    ['500', status(500, errorBody('INTERNAL_ERROR', 'oops'))],
    ['503', status(503, errorBody('UNAVAILABLE', 'later'))],
    ['a connection error', () => HttpResponse.error()],
  ])('retries %s and then succeeds', async (_name, failure) => {
    sequence('post', '/offers', [failure]);
    const { core } = makeCore();
    await expect(core.request({ method: 'POST', path: '/offers', body: {} })).resolves.toEqual({ ok: true });
    expect(seen).toHaveLength(2);
  });

  it('retries a timed-out attempt and reports TimeoutError when out of retries', async () => {
    sequence('get', '/slow', [
      async () => {
        await delay('infinite');
        return HttpResponse.json({});
      },
    ]);
    const { core } = makeCore({ timeoutMs: 20 });
    await expect(core.request({ method: 'GET', path: '/slow' })).resolves.toEqual({ ok: true });
    expect(seen).toHaveLength(2);

    server.use(
      http.get(`${BASE}/slower`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const error = await core
      .request({ method: 'GET', path: '/slower', maxRetries: 1, timeoutMs: 10 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as TimeoutError).message).toContain('10 ms');
    expect(seen).toHaveLength(4);
  });

  it.each([
    [400, BadRequestError, 'INVALID_REQUEST'],
    [401, AuthenticationError, 'UNAUTHENTICATED'],
    [404, NotFoundError, 'NOT_FOUND'],
    [422, UnprocessableEntityError, 'UNPROCESSABLE'],
    [409, ConflictError, 'CHECKOUT_NOT_READY'],
  ])('does not retry %i %s', async (code, ErrorClass, errorCode) => {
    sequence('post', '/offers', [status(code, errorBody(errorCode, 'no'))]);
    const { core, delays } = makeCore({ maxRetries: 5 });
    const error = await core.request({ method: 'POST', path: '/offers', body: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ErrorClass);
    expect((error as ApiError).status).toBe(code);
    expect((error as ApiError).code).toBe(errorCode);
    expect(seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('a connection error surfaces as ConnectionError once retries run out', async () => {
    server.use(http.get(`${BASE}/down`, () => HttpResponse.error()));
    const { core } = makeCore({ maxRetries: 1 });
    const error = await core.request({ method: 'GET', path: '/down' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toMatch(/^Connection error: /);
    expect(seen).toHaveLength(2);
  });
});

describe('retry limit and back-off', () => {
  it('stops after maxRetries and backs off exponentially', async () => {
    server.use(
      http.get(`${BASE}/boom`, () => HttpResponse.json(errorBody('INTERNAL_ERROR', 'x'), { status: 500 })),
    );
    const { core, delays } = makeCore({ maxRetries: 4 });
    await expect(core.request({ method: 'GET', path: '/boom' })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(5);
    expect(delays).toEqual([500, 1000, 2000, 4000]);
  });

  it('defaults to 2 retries; a per-request maxRetries overrides the client', async () => {
    server.use(
      http.get(`${BASE}/boom`, () => HttpResponse.json(errorBody('INTERNAL_ERROR', 'x'), { status: 500 })),
    );
    const { core } = makeCore();
    await expect(core.request({ method: 'GET', path: '/boom' })).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(3);
    seen.length = 0;
    await expect(core.request({ method: 'GET', path: '/boom', maxRetries: 0 })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(seen).toHaveLength(1);
  });

  it('backoffDelay doubles from 0.5 s, caps at 8 s and jitters down by at most 25%', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(backoffDelay(0, () => 0.999)).toBeGreaterThanOrEqual(375);
    expect(backoffDelay(0, () => 0.999)).toBeLessThan(500);
  });
});

describe('Retry-After', () => {
  it('honours Retry-After in seconds', async () => {
    sequence('get', '/limited', [status(429, errorBody('RATE_LIMITED', 'x'), { 'Retry-After': '3' })]);
    const { core, delays } = makeCore();
    await core.request({ method: 'GET', path: '/limited' });
    expect(delays).toEqual([3000]);
  });

  it('honours retry-after-ms over Retry-After', async () => {
    sequence('get', '/limited', [
      status(503, errorBody('UNAVAILABLE', 'x'), { 'retry-after-ms': '1234', 'Retry-After': '9' }),
    ]);
    const { core, delays } = makeCore();
    await core.request({ method: 'GET', path: '/limited' });
    expect(delays).toEqual([1234]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 5_000).toUTCString();
    sequence('get', '/limited', [status(429, errorBody('RATE_LIMITED', 'x'), { 'Retry-After': at })]);
    const { core, delays } = makeCore();
    await core.request({ method: 'GET', path: '/limited' });
    expect(delays).toHaveLength(1);
    // HTTP dates have whole seconds, so up to one second is lost.
    expect(delays[0]).toBeGreaterThan(3_000);
    expect(delays[0]).toBeLessThanOrEqual(5_000);
  });

  it('does not retry when the server asks for longer than a minute', async () => {
    sequence('get', '/limited', [status(429, errorBody('RATE_LIMITED', 'x'), { 'Retry-After': '120' })]);
    const { core, delays } = makeCore();
    const error = await core.request({ method: 'GET', path: '/limited' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).headers?.get('retry-after')).toBe('120');
    expect(seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it('parseRetryAfter ignores junk and clamps past dates to 0', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': '-1' }))).toBeUndefined();
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }))).toBe(0);
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });
});

describe('Idempotency-Key', () => {
  it('keeps one generated key across all retries of a call, and a new key per call', async () => {
    sequence('post', '/checkouts/chk_1/confirm', [
      status(409, errorBody('IDEMPOTENCY_KEY_IN_USE', 'running')),
      () => HttpResponse.error(),
    ]);
    const { core } = makeCore();
    await core.request({ method: 'POST', path: '/checkouts/chk_1/confirm' });
    const keys = seen.map((r) => r.headers.get('idempotency-key'));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toBeTruthy();

    await core.request({ method: 'POST', path: '/checkouts/chk_1/confirm' });
    expect(seen[3]?.headers.get('idempotency-key')).not.toBe(keys[0]);
  });

  it('uses a caller-provided key unchanged on every attempt', async () => {
    sequence('post', '/offers', [status(500), status(502)]);
    const { core } = makeCore();
    await core.request({ method: 'POST', path: '/offers', body: {}, idempotencyKey: 'order-7-confirm' });
    expect(seen.map((r) => r.headers.get('idempotency-key'))).toEqual([
      'order-7-confirm',
      'order-7-confirm',
      'order-7-confirm',
    ]);
  });
});

describe('abort', () => {
  it('aborts an in-flight request', async () => {
    server.use(
      http.get(`${BASE}/hang`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const { core } = makeCore();
    const controller = new AbortController();
    const pending = core.request({ method: 'GET', path: '/hang', signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 10);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).cause).toEqual(new Error('user left'));
    expect(seen).toHaveLength(1);
  });

  it('aborts during the back-off sleep, even if the injected sleep ignores the signal', async () => {
    server.use(
      http.get(`${BASE}/boom`, () => HttpResponse.json(errorBody('INTERNAL_ERROR', 'x'), { status: 500 })),
    );
    const controller = new AbortController();
    const { core } = makeCore({
      sleep: () => {
        controller.abort();
        return new Promise<void>(() => {});
      },
    });
    const error = await core
      .request({ method: 'GET', path: '/boom', signal: controller.signal })
      .catch((e) => e);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(1);
  });

  it('aborts the default back-off sleep', async () => {
    server.use(
      http.get(`${BASE}/boom`, () =>
        HttpResponse.json(errorBody('INTERNAL_ERROR', 'x'), {
          status: 503,
          headers: { 'Retry-After': '30' },
        }),
      ),
    );
    const { core } = makeCore({ sleep: undefined });
    const controller = new AbortController();
    const pending = core.request({ method: 'GET', path: '/boom', signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { core } = makeCore();
    const controller = new AbortController();
    controller.abort();
    await expect(
      core.request({ method: 'GET', path: '/x', signal: controller.signal }),
    ).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(0);
  });

  it('sleep() resolves after the delay and rejects at once on abort', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
  });
});
