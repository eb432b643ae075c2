// What npm users get: the built ESM and CommonJS files loaded the way Node loads them. ky 1
// is ESM-only, so a CJS build that left it external broke at the first request.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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
});
