// What npm users get: the built ESM and CommonJS files, loaded the way Node loads them, with the
// private core bundled in, and @svc/webhooks left as a dependency.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inspect } from 'node:util';
import { CORE_ERROR_NAMES, expectRealErrorNames } from '@svc/client-core/test/error-names';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { BASE, server, useServer } from './helpers.js';

type Entry = typeof import('../src/index.js');

useServer();

const dist = join(import.meta.dirname, '..', 'dist');
const require = createRequire(import.meta.url);

const built = (file: string) => {
  const path = join(dist, file);
  if (!existsSync(path)) {
    throw new Error(
      `packages/commerce-client/dist/${file} is missing. Build first: pnpm --filter @svc/commerce-client build (the root \`pnpm test\` does this).`,
    );
  }
  return path;
};

describe.each([
  ['ESM', async () => (await import(pathToFileURL(built('index.js')).href)) as Entry],
  ['CJS', async () => require(built('index.cjs')) as Entry],
])('the built %s entry', (_format, load) => {
  it('sends requests and rejects with its own typed errors', async () => {
    server.use(
      http.get(`${BASE}/health`, ({ request }) =>
        HttpResponse.json({ ok: true, client: request.headers.get('service-client') }),
      ),
      http.get(`${BASE}/orders/ord_1`, () =>
        HttpResponse.json(
          { error: { code: 'NOT_FOUND', message: 'No order.', request_id: 'r' } },
          { status: 404 },
        ),
      ),
    );
    const lib = await load();
    const client = new lib.CommerceClient({ baseUrl: BASE, apiKey: 'svc_test_dist' });
    expect(await client.health.check()).toEqual({ ok: true, client: `@svc/commerce-client/${lib.VERSION}` });
    const error = await client
      .forUser('user-1')
      .orders.retrieve('ord_1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.NotFoundError);
    expect(error).toBeInstanceOf(lib.CommerceApiError);
    expect(await client.checkouts.retrieve('chk_1').catch((e: unknown) => e)).toBeInstanceOf(
      lib.MissingUserTokenError,
    );
    expect(typeof lib.verifyEventAsync).toBe('function');
  });

  it('gives every error class its real name in .name, the stack and console.log', async () => {
    const names = Object.fromEntries(CORE_ERROR_NAMES.map((name) => [name, name]));
    expectRealErrorNames(
      await load(),
      {
        ...names,
        CommerceApiError: 'ApiError',
        MissingUserTokenError: 'MissingUserTokenError',
        PollTimeoutError: 'PollTimeoutError',
        CheckoutWaitTimeoutError: 'CheckoutWaitTimeoutError',
        CheckoutWaitAbortedError: 'CheckoutWaitAbortedError',
      },
      inspect,
    );
  });

  it('lists answer withResponse()', async () => {
    server.use(
      http.get(`${BASE}/orders`, () =>
        HttpResponse.json({ orders: [] }, { headers: { 'service-request-id': 'req_list' } }),
      ),
    );
    const lib = await load();
    const user = new lib.CommerceClient({ baseUrl: 'https://commerce.test', apiKey: 'k' }).forUser('u');
    expect((await user.orders.list().withResponse()).requestId).toBe('req_list');
  });
});

// Only the private core is bundled: no HTTP library (fetch is the runtime's), and
// @svc/webhooks stays a dependency.
it('bundles the private core and nothing else', () => {
  for (const file of ['index.js', 'index.cjs']) {
    const code = readFileSync(built(file), 'utf8');
    expect(code).not.toContain('@svc/client-core');
    expect(code).not.toMatch(/\bky\b|prefixUrl/);
    expect(code).toMatch(/"@svc\/webhooks\/web"/);
  }
  const types = readFileSync(built('index.d.ts'), 'utf8');
  expect(types).not.toContain('@svc/client-core');
  expect(types).not.toMatch(/from '\.\//);
});
