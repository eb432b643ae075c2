// The client READMEs' "Quick start" sections, run like the docs/quickstarts pages.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDoc, type Server, startServer } from './harness.js';

let server: Server;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.stop());

it('packages/content-client/README.md: the quick start plans a week, as written', async () => {
  const { stdout, files } = await runDoc('packages/content-client/README.md', {
    section: 'Quick start',
    env: { SERVICE_API_URL: server.urls.content as string, SERVICE_DATA_DIR: server.dataDir },
  });
  expect(files).toEqual(['quickstart.mjs']);
  expect(stdout).toMatch(/^".+": x and linkedin drafts$/m);
  expect(stdout).toMatch(/^waiting for a person: apr_\w+$/m);
});

it('packages/commerce-client/README.md: the quick start buys in the sandbox, as written', async () => {
  const { stdout, files } = await runDoc('packages/commerce-client/README.md', {
    section: 'Quick start',
    env: { SERVICE_API_URL: server.urls.commerce as string, SERVICE_DATA_DIR: server.dataDir },
  });
  expect(files).toEqual(['quickstart.mjs']);
  expect(stdout).toMatch(/^order ord_\w+: placed$/m);
});
