import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDoc, type Server, startServer } from './harness.js';

let server: Server;
beforeAll(async () => {
  server = await startServer({ only: 'commerce' });
});
afterAll(() => server?.stop());

it('docs/quickstarts/commerce-app.md: a sandbox purchase, as written', async () => {
  const { stdout } = await runDoc('docs/quickstarts/commerce-app.md', {
    env: { SERVICE_API_URL: server.urls.commerce as string, SERVICE_DATA_DIR: server.dataDir },
  });
  expect(stdout).toMatch(/^offer ofr_\w+: Kettle, [\d.]+ USD$/m);
  expect(stdout).toMatch(/^checkout chk_\w+: requires_user_action$/m);
  expect(stdout).toMatch(/^checkout chk_\w+: ready_to_confirm$/m);
  expect(stdout).toMatch(/^confirmed: completed, order ord_\w+; retry replayed: true$/m);
  expect(stdout).toMatch(/^order ord_\w+: placed$/m);
});
