// Retries and error mapping as a commerce caller meets them. The back-off sleeps are recorded by
// the test core, so waits are asserted by value, never by wall-clock time.
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  CommerceApiError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  TimeoutError,
  UnprocessableEntityError,
} from '../src/index.js';
import { BASE, checkout, errorBody, makeClient, seen, server, useServer } from './helpers.js';

useServer();

const CONFIRM = `${BASE}/checkouts/chk_1/confirm`;

/** Answers with each response in turn; the last one repeats. */
function answers(url: string, ...responses: Array<() => Response>): void {
  let n = 0;
  server.use(http.post(url, () => (responses[Math.min(n++, responses.length - 1)] as () => Response)()));
}

const completed = () => HttpResponse.json(checkout({ status: 'completed', order_id: 'ord_1' }));
const failure =
  (status: number, code: string, headers: Record<string, string> = {}) =>
  () =>
    HttpResponse.json(errorBody(code, `${code} happened`), { status, headers });

describe('retries', () => {
  it('retries a confirm on 503 and sends the same idempotency key every time', async () => {
    answers(CONFIRM, failure(503, 'MERCHANT_UNAVAILABLE'), failure(500, 'INTERNAL_ERROR'), completed);
    const { user, delays } = makeClient();
    const result = await user.checkouts.confirm('chk_1');
    expect(result.status).toBe('completed');
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((r) => r.headers.get('idempotency-key')));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f-]{36}$/);
    // Exponential back-off (jitter is off in the test core): 0.5 s, then 1 s.
    expect(delays).toEqual([500, 1000]);
  });

  it('keeps the caller’s key across retries too', async () => {
    answers(CONFIRM, failure(502, 'BAD_GATEWAY'), completed);
    const { user } = makeClient();
    await user.checkouts.confirm('chk_1', { idempotencyKey: 'order-7' });
    expect(seen.map((r) => r.headers.get('idempotency-key'))).toEqual(['order-7', 'order-7']);
  });

  it('stops after maxRetries (default 2) and rejects with the last error', async () => {
    answers(CONFIRM, failure(500, 'INTERNAL_ERROR'));
    const { user } = makeClient();
    const error = await user.checkouts.confirm('chk_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(3);
  });

  it('honours maxRetries per client and per call', async () => {
    answers(CONFIRM, failure(500, 'INTERNAL_ERROR'));
    const { user } = makeClient({ maxRetries: 4 });
    await expect(user.checkouts.confirm('chk_1')).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(5);
    seen.length = 0;
    await expect(user.checkouts.confirm('chk_1', { maxRetries: 0 })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(seen).toHaveLength(1);
  });

  it('retries 409 IDEMPOTENCY_KEY_IN_USE until the first request’s answer is replayed', async () => {
    answers(CONFIRM, failure(409, 'IDEMPOTENCY_KEY_IN_USE'), () =>
      HttpResponse.json(checkout({ status: 'completed' }), { headers: { 'idempotent-replayed': 'true' } }),
    );
    const { user } = makeClient();
    const { data, idempotentReplayed } = await user.checkouts
      .confirm('chk_1', { idempotencyKey: 'k1' })
      .withResponse();
    expect(data.status).toBe('completed');
    expect(idempotentReplayed).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it('never retries another 409, or any other 4xx', async () => {
    const { user } = makeClient();
    for (const [status, code] of [
      [409, 'CHECKOUT_STATE_INVALID'],
      [400, 'INVALID_REQUEST'],
      [401, 'INVALID_API_KEY'],
      [403, 'MERCHANT_NOT_ALLOWED'],
      [404, 'NOT_FOUND'],
      [422, 'MAX_PER_ORDER_EXCEEDED'],
    ] as const) {
      seen.length = 0;
      answers(CONFIRM, failure(status, code));
      await expect(user.checkouts.confirm('chk_1')).rejects.toMatchObject({ status, code });
      expect(seen).toHaveLength(1);
    }
  });

  it('waits as long as Retry-After says on 429', async () => {
    answers(CONFIRM, failure(429, 'RATE_LIMITED', { 'retry-after': '3' }), completed);
    const { user, delays } = makeClient();
    await user.checkouts.confirm('chk_1');
    expect(delays).toEqual([3000]);
  });

  it('does not wait out a Retry-After longer than a minute: the error carries it', async () => {
    answers(CONFIRM, failure(429, 'RATE_LIMITED', { 'retry-after': '3600' }));
    const { user, delays } = makeClient();
    const error = (await user.checkouts.confirm('chk_1').catch((e: unknown) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.headers?.get('retry-after')).toBe('3600');
    expect(delays).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('retries connection errors, then gives up with ConnectionError', async () => {
    server.use(http.get(`${BASE}/orders/ord_1`, () => HttpResponse.error()));
    const { user } = makeClient({ maxRetries: 1 });
    const error = await user.orders.retrieve('ord_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toBeInstanceOf(CommerceApiError);
    expect(seen).toHaveLength(2);
  });

  it('times out a slow attempt with TimeoutError and retries it', async () => {
    server.use(
      http.get(`${BASE}/orders/ord_1`, async () => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return HttpResponse.json({});
      }),
    );
    const { user } = makeClient({ maxRetries: 1 });
    const error = await user.orders.retrieve('ord_1', { timeoutMs: 20 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(seen).toHaveLength(2);
  });
});

describe('errors', () => {
  it.each([
    [400, 'INVALID_REQUEST', BadRequestError],
    [401, 'AUTHENTICATION_REQUIRED', AuthenticationError],
    [403, 'SANDBOX_ONLY', PermissionDeniedError],
    [404, 'NOT_FOUND', NotFoundError],
    [409, 'CHECKOUT_STATE_INVALID', ConflictError],
    [422, 'OFFER_EXPIRED', UnprocessableEntityError],
    [429, 'RATE_LIMITED', RateLimitError],
    [500, 'INTERNAL_ERROR', InternalServerError],
    [503, 'MERCHANT_UNAVAILABLE', InternalServerError],
  ] as const)('%i %s is a %s, and a CommerceApiError', async (status, code, ErrorClass) => {
    server.use(
      http.get(`${BASE}/checkouts/chk_1`, () =>
        HttpResponse.json(errorBody(code, 'Something specific.', 'req_from_body'), {
          status,
          headers: { 'service-request-id': 'req_from_header' },
        }),
      ),
    );
    const { user } = makeClient({ maxRetries: 0 });
    const error = (await user.checkouts.retrieve('chk_1').catch((e: unknown) => e)) as CommerceApiError;
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(CommerceApiError);
    expect(error).toMatchObject({
      status,
      code,
      requestId: 'req_from_body',
      message: `${status} ${code}: Something specific.`,
      body: errorBody(code, 'Something specific.', 'req_from_body'),
    });
  });

  it('turns an HTML error page from a proxy into a typed error with the header’s request id', async () => {
    const html = '<html><body><h1>502 Bad Gateway</h1><p>nginx</p></body></html>';
    server.use(
      http.post(
        `${BASE}/offers`,
        () =>
          new HttpResponse(html, {
            status: 502,
            statusText: 'Bad Gateway',
            headers: { 'content-type': 'text/html', 'service-request-id': 'req_proxy' },
          }),
      ),
    );
    const { client } = makeClient({ maxRetries: 0 });
    const error = (await client.offers.create({ url: 'https://s.test/p' }).catch((e: unknown) => e)) as
      | InternalServerError
      | undefined;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 502, code: null, requestId: 'req_proxy', body: html });
    expect(error?.message).toMatch(/^502 Bad Gateway \(unexpected response body\): <html>/);
  });

  it('an empty error body still maps by status', async () => {
    server.use(http.get(`${BASE}/offers/ofr_1`, () => new HttpResponse(null, { status: 404 })));
    const { client } = makeClient();
    await expect(client.offers.retrieve('ofr_1')).rejects.toMatchObject({
      name: 'NotFoundError',
      status: 404,
      code: null,
    });
  });
});
