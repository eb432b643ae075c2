// What npm users get: the built ESM and CommonJS files loaded the way Node loads them, with the
// private core bundled in and nothing else.
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

const require = createRequire(import.meta.url);
const built = (file: string) => {
  const path = join(import.meta.dirname, '..', 'dist', file);
  if (!existsSync(path)) {
    throw new Error(
      `packages/content-client/dist/${file} is missing. Build first (the root \`pnpm test\` does).`,
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
      http.get(`${BASE}/mode`, () => HttpResponse.json({ mode: 'sandbox', model: 'simulated' })),
      http.get(`${BASE}/brands/brd_missing`, () =>
        HttpResponse.json(
          { error: { code: 'NOT_FOUND', message: 'No brand.', request_id: 'req_1' } },
          { status: 404 },
        ),
      ),
    );
    const lib = await load();
    const client = new lib.ContentClient({ baseUrl: BASE });
    expect(await client.mode.retrieve()).toMatchObject({ mode: 'sandbox' });
    const error = await client.brands.retrieve('brd_missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(lib.NotFoundError);
    expect(error).toBeInstanceOf(lib.ContentApiError);
    expect((error as InstanceType<typeof lib.ContentApiError>).requestId).toBe('req_1');
  });

  it('gives every error class its real name in .name, the stack and console.log', async () => {
    const names = Object.fromEntries(CORE_ERROR_NAMES.map((name) => [name, name]));
    expectRealErrorNames(
      await load(),
      {
        ...names,
        ContentApiError: 'ApiError',
      },
      inspect,
    );
  });

  it('accepts the service root as baseUrl and lists answer withResponse()', async () => {
    server.use(
      http.get(`${BASE}/agents`, () =>
        HttpResponse.json({ agents: [] }, { headers: { 'service-request-id': 'req_list' } }),
      ),
    );
    const lib = await load();
    const client = new lib.ContentClient({ baseUrl: new URL(BASE).origin });
    expect((await client.agents.list().withResponse()).requestId).toBe('req_list');
  });
});

// Only the private core is bundled: no HTTP library, fetch is the runtime's.
it('bundles the private core and nothing else', () => {
  for (const file of ['index.js', 'index.cjs']) {
    const code = readFileSync(built(file), 'utf8');
    expect(code).not.toContain('@svc/client-core');
    expect(code).not.toMatch(/\bky\b|prefixUrl/);
  }
});
