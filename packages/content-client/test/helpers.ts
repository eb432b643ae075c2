import { ClientCore } from '@svc/client-core';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ContentClient } from '../src/index.js';

export const BASE = 'https://content.test/v1';

export const server = setupServer();

/** Every request that reached the network, in order (cloned, so bodies stay readable). */
export const seen: Request[] = [];

export function useServer(): void {
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' });
    server.events.on('request:start', ({ request }) => {
      seen.push(request.clone());
    });
  });
  afterEach(() => {
    server.resetHandlers();
    seen.length = 0;
  });
  afterAll(() => server.close());
}

/**
 * A client whose retry back-off sleeps are recorded, not waited. The ContentClient takes a
 * ClientCore for exactly this: tests inject the core's sleep and jitter hooks.
 */
export function makeClient(opts: { maxRetries?: number; apiKey?: string } = {}) {
  const delays: number[] = [];
  const core = new ClientCore({
    baseUrl: BASE,
    serviceClient: '@svc/content-client/test',
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0,
    ...opts,
  });
  return { client: new ContentClient(core), delays };
}

export function errorBody(code: string, message: string, requestId = 'req_body') {
  return { error: { code, message, request_id: requestId } };
}

/** Answers every request with `{ ok: true }` (201 for POST) so request shapes can be checked. */
export function echoAll(): void {
  server.use(
    http.all(`${BASE}/*`, ({ request }) =>
      HttpResponse.json({ ok: true }, { status: request.method === 'POST' ? 201 : 200 }),
    ),
  );
}
