import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  BadRequestError,
  ConflictError,
  ConnectionError,
  ContentApiError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  UnprocessableEntityError,
} from '../src/index.js';
import { BASE, errorBody, makeClient, seen, server, useServer } from './helpers.js';

useServer();

const failWith = (status: number, code: string, message = 'Nope.') =>
  server.use(
    http.all(`${BASE}/*`, () =>
      HttpResponse.json(errorBody(code, message, 'req_123'), {
        status,
        headers: { 'Service-Request-Id': 'req_123' },
      }),
    ),
  );

describe('errors: { error: { code, message, request_id } } becomes a typed ContentApiError', () => {
  it.each([
    [400, 'INVALID_REQUEST', BadRequestError],
    [404, 'NOT_FOUND', NotFoundError],
    [409, 'APPROVAL_DECIDED', ConflictError],
    [422, 'SLOT_IN_PAST', UnprocessableEntityError],
  ] as const)('%i %s', async (status, code, Class) => {
    failWith(status, code, 'Explained for a person.');
    const error = await makeClient()
      .client.approvals.approve('apr_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(ContentApiError);
    expect(error).toMatchObject({ status, code, requestId: 'req_123' });
    expect((error as Error).message).toBe(`${status} ${code}: Explained for a person.`);
    expect(seen).toHaveLength(1); // a 4xx is never retried
  });

  it('keeps the parsed body, including the param a validation error names', async () => {
    server.use(
      http.post(`${BASE}/ideas`, () =>
        HttpResponse.json(
          { error: { code: 'INVALID_REQUEST', message: 'Unknown field.', param: 'titel', request_id: 'r' } },
          { status: 400 },
        ),
      ),
    );
    const error = (await makeClient()
      .client.ideas.create({ brand_id: 'brd_1', title: 'T' })
      .catch((e: unknown) => e)) as BadRequestError;
    expect(error.body).toMatchObject({ error: { param: 'titel' } });
  });

  it('maps an unmapped status (415) to the base class with its code', async () => {
    failWith(415, 'UNSUPPORTED_MEDIA');
    const error = await makeClient()
      .client.media.upload('brd_1', new Uint8Array([1, 2, 3]))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContentApiError);
    expect(error).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA' });
  });

  it('a proxy HTML page still maps by status, with code null', async () => {
    server.use(http.get(`${BASE}/mode`, () => new HttpResponse('<html>Bad gateway</html>', { status: 502 })));
    const error = await makeClient({ maxRetries: 0 })
      .client.mode.retrieve()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error).toMatchObject({ status: 502, code: null });
  });
});

describe('retries follow the family rules', () => {
  it('retries 5xx and resends a POST with the same Idempotency-Key', async () => {
    let n = 0;
    server.use(
      http.post(`${BASE}/agents/weekly_plan/runs`, () =>
        ++n < 3
          ? HttpResponse.json(errorBody('INTERNAL_ERROR', 'Oops'), { status: 500 })
          : HttpResponse.json({ id: 'run_1' }, { status: 201 }),
      ),
    );
    const { client, delays } = makeClient();
    const run = await client.agents.run('weekly_plan', { inputs: { brandId: 'brd_1' } });
    expect(run.id).toBe('run_1');
    expect(seen).toHaveLength(3);
    const keys = new Set(seen.map((r) => r.headers.get('idempotency-key')));
    expect(keys.size).toBe(1);
    expect(delays).toEqual([500, 1000]);
  });

  it('honours Retry-After on 429', async () => {
    let n = 0;
    server.use(
      http.get(`${BASE}/mode`, () =>
        ++n === 1
          ? HttpResponse.json(errorBody('RATE_LIMITED', 'Slow down'), {
              status: 429,
              headers: { 'Retry-After': '3' },
            })
          : HttpResponse.json({ mode: 'sandbox' }),
      ),
    );
    const { client, delays } = makeClient();
    expect(await client.mode.retrieve()).toEqual({ mode: 'sandbox' });
    expect(delays).toEqual([3000]);
  });

  it('gives up after maxRetries with the last error', async () => {
    failWith(503, 'UNAVAILABLE');
    const { client } = makeClient({ maxRetries: 1 });
    await expect(client.brands.retrieve('brd_1')).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(2);
  });

  it('does not retry 429 beyond the limit and reports RateLimitError', async () => {
    failWith(429, 'DAILY_CAP_REACHED');
    const { client } = makeClient({ maxRetries: 0 });
    await expect(client.automations.run('auto_1')).rejects.toBeInstanceOf(RateLimitError);
  });

  it('retries connection errors', async () => {
    let n = 0;
    server.use(
      http.get(`${BASE}/sandbox/clock`, () =>
        ++n === 1 ? HttpResponse.error() : HttpResponse.json({ now: '2030-01-01T00:00:00.000Z' }),
      ),
    );
    const { client } = makeClient();
    expect((await client.sandboxClock.retrieve()).now).toBe('2030-01-01T00:00:00.000Z');
    expect(n).toBe(2);
  });

  it('reports a connection error as ConnectionError once retries run out', async () => {
    server.use(http.get(`${BASE}/mode`, () => HttpResponse.error()));
    await expect(makeClient({ maxRetries: 0 }).client.mode.retrieve()).rejects.toBeInstanceOf(
      ConnectionError,
    );
  });
});

describe('raw responses', () => {
  it('withResponse() gives data, the response and the request id', async () => {
    server.use(
      http.get(`${BASE}/mode`, () =>
        HttpResponse.json({ mode: 'live' }, { headers: { 'Service-Request-Id': 'req_9' } }),
      ),
    );
    const { data, response, requestId } = await makeClient().client.mode.retrieve().withResponse();
    expect(data).toEqual({ mode: 'live' });
    expect(requestId).toBe('req_9');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ mode: 'live' });
  });

  it('media.upload keeps withResponse() although it reads the file first', async () => {
    server.use(
      http.post(`${BASE}/brands/brd_1/media`, () =>
        HttpResponse.json({ id: 'med_1' }, { status: 201, headers: { 'Service-Request-Id': 'req_u' } }),
      ),
    );
    const { data, requestId } = await makeClient()
      .client.media.upload('brd_1', new Blob(['x']))
      .withResponse();
    expect(data.id).toBe('med_1');
    expect(requestId).toBe('req_u');
  });
});
