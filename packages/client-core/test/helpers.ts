import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { ClientCore, type CoreConfig } from '../src/index.js';
import { adoptRuntimeFetch } from '../src/transport.js';

export const BASE = 'https://api.test/v1';

export const server = setupServer();

/** Every request that reached the network layer, in order. */
export const seen: Request[] = [];

/**
 * The transport this run of the suite uses: the `client-core` project runs every file over
 * node:http, `client-core-fetch` over fetch (vitest.config.ts, vitest.fetch.config.ts).
 */
export const TRANSPORT: 'node' | 'fetch' =
  process.env.SVC_CLIENT_TEST_TRANSPORT === 'fetch' ? 'fetch' : 'node';

/**
 * Makes calls without a `fetch` option take this run's transport. Node: whatever the global
 * fetch is now (msw's, in the files that use it) counts as the runtime's, so node:http carries
 * the call (msw answers node:http too). Fetch: the global fetch is wrapped, as a fetch mock
 * would, so the core takes the global fetch.
 */
export function useTransport(): void {
  let restore: (() => void) | undefined;
  beforeAll(() => {
    const current = globalThis.fetch;
    if (TRANSPORT === 'node') {
      const previous = adoptRuntimeFetch(current);
      restore = () => adoptRuntimeFetch(previous);
    } else {
      globalThis.fetch = (input, init) => current(input, init);
      restore = () => {
        globalThis.fetch = current;
      };
    }
  });
  afterAll(() => restore?.());
}

export function useServer(): void {
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'error' });
    server.events.on('request:start', ({ request }) => {
      seen.push(request);
    });
  });
  useTransport();
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
