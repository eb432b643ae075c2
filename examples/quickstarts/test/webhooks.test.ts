import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, runDoc, type Server, startServer } from './harness.js';

let server: Server;
beforeAll(async () => {
  server = await startServer({ only: 'commerce', env: { SERVICE_WEBHOOK_ALLOW_PRIVATE: '1' } });
});
afterAll(() => server?.stop());

it('docs/quickstarts/webhooks.md: registers, verifies, dedupes and reads back, as written', async () => {
  const port = String(await freePort());
  const { ran, stopped } = await runDoc('docs/quickstarts/webhooks.md', {
    env: { SERVICE_API_URL: server.urls.commerce as string, SERVICE_DATA_DIR: server.dataDir, PORT: port },
    backgroundUntil: ['fulfil it', 'order.updated: '],
  });
  expect(ran.at(-1)?.stdout).toMatch(/^\{"checkout":"chk_\w+"\}$/);
  const app = stopped[0];
  expect(app?.stderr).toBe('');
  expect(app?.stdout).toContain(`Listening on http://127.0.0.1:${port}`);
  expect(app?.stdout).toMatch(/^checkout\.updated: chk_\w+$/m);
  expect(app?.stdout).toMatch(/^checkout\.completed: order ord_\w+ is placed, fulfil it$/m);
  expect(app?.stdout).toMatch(/^order\.updated: ord_\w+$/m);
  // Each event is handled once.
  const ids = app?.stdout.match(/^checkout\.completed: /gm) ?? [];
  expect(ids).toHaveLength(1);
});
