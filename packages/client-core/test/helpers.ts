import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ClientCore, type CoreConfig } from '../src/index.js';

export const BASE = 'https://api.test/v1';

export const server = setupServer();

/** Every request that reached the network layer, in order. */
export const seen: Request[] = [];

export function useServer(): void {
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' });
    server.events.on('request:start', ({ request }) => {
      seen.push(request);
    });
  });
  afterEach(() => {
    server.resetHandlers();
    seen.length = 0;
  });
  afterAll(() => server.close());
}

/** A core whose back-off sleeps are recorded instead of waited, with jitter switched off. */
export function makeCore(config: Partial<CoreConfig> = {}): { core: ClientCore; delays: number[] } {
  const delays: number[] = [];
  const core = new ClientCore({
    baseUrl: BASE,
    apiKey: 'svc_test_key',
    serviceClient: '@svc/test-client/1.2.3',
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0,
    ...config,
  });
  return { core, delays };
}

export function errorBody(code: string, message: string, requestId = 'req_body') {
  return { error: { code, message, request_id: requestId } };
}
