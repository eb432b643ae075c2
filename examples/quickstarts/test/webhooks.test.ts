import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { signPayload } from '@svc/webhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { cleanEnv, freePort, repoRoot, runDoc, type Server, startServer } from './harness.js';

let server: Server;
beforeAll(async () => {
  server = await startServer({ only: 'commerce', env: { SERVICE_WEBHOOK_ALLOW_PRIVATE: '1' } });
});
afterAll(() => server?.stop());

it('docs/quickstarts/webhooks.md: registers, verifies, dedupes and reads back, as written', async () => {
  const port = String(await freePort());
  const { ran, stopped } = await runDoc('docs/quickstarts/webhooks.md', {
    env: { SERVICE_API_URL: server.urls.commerce as string, ...server.storage, PORT: port },
    backgroundUntil: ['fulfil it', 'order.updated: '],
    // The app as the doc wrote it: a delivery signed with another secret is refused, and the
    // same event twice is handled once.
    whileRunning: async (env) => {
      const body = JSON.stringify({
        id: 'evt_quickstart_twice',
        type: 'checkout.updated',
        created_at: new Date().toISOString(),
        data: { id: 'chk_quickstart_twice', object: 'checkout', user_id: 'usr_nobody', status: 'processing' },
      });
      const deliver = (secret: string) =>
        fetch(`http://127.0.0.1:${port}/webhooks`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Service-Signature': signPayload(body, secret) },
          body,
        });
      const forged = await deliver('whsec_not_the_secret');
      expect([forged.status, await forged.json()]).toEqual([400, { error: 'signature_mismatch' }]);
      expect((await deliver(env.SVC_WEBHOOK_SECRET as string)).status).toBe(204);
      expect((await deliver(env.SVC_WEBHOOK_SECRET as string)).status).toBe(200);
    },
  });
  expect(ran.at(-1)?.stdout).toMatch(/^\{"checkout":"chk_\w+"\}$/);
  const app = stopped[0];
  expect(app?.stderr).toBe('');
  expect(app?.stdout).toContain(`Listening on http://127.0.0.1:${port}`);
  expect(app?.stdout).toMatch(/^checkout\.updated: chk_\w+$/m);
  expect(app?.stdout).toMatch(/^checkout\.completed: order ord_\w+ is placed, fulfil it$/m);
  expect(app?.stdout).toMatch(/^order\.updated: ord_\w+$/m);
  // Each event is handled once.
  expect(app?.stdout.match(/^checkout\.completed: /gm)).toHaveLength(1);
  expect(app?.stdout.match(/^checkout\.updated: chk_quickstart_twice$/gm)).toHaveLength(1);
});

it('docs/quickstarts/webhooks.md: against a server without SERVICE_WEBHOOK_ALLOW_PRIVATE, registering fails loudly and names the setting', async () => {
  const strict = await startServer({ only: 'commerce' });
  try {
    // Step 2 of the doc, the key the register step needs.
    const key = execFileSync(
      process.execPath,
      [
        join(repoRoot, 'packages/server/dist/cli.js'),
        'keys',
        'create',
        '--service',
        'commerce',
        '--env',
        'sandbox',
        '--name',
        'strict',
      ],
      { env: cleanEnv(strict.storage), encoding: 'utf8' },
    ).trim();
    const run = runDoc('docs/quickstarts/webhooks.md', {
      section: '3. Register your endpoint',
      env: { SERVICE_API_URL: strict.urls.commerce as string, SERVICE_API_KEY: key },
    });
    // The step's shell line fails (so SVC_WEBHOOK_SECRET is never exported empty) with one line
    // on stderr that says which setting fixes it.
    await expect(run).rejects.toThrow(
      /stderr:\nCould not register the endpoint: .*SERVICE_WEBHOOK_ALLOW_PRIVATE=1/,
    );
  } finally {
    await strict.stop();
  }
});
