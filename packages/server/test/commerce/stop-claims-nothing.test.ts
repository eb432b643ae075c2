import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openCommerceDatabase } from '../../src/commerce/db/open.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import { DEFAULT_ACCOUNT_ID } from '../../src/commerce/services/api-keys.js';
import { binFiles, cli, printedUrl } from '../helpers/cli.js';
import { TEST_POOL_SIZE } from '../helpers/database.js';
import { api } from '../helpers/start.js';

/**
 * A stop begins by telling each service (`stopping()`, before the HTTP server drains), so
 * background work takes nothing new while the requests in flight finish. Commerce's dispatcher
 * kept claiming deliveries through the drain (as long as the slowest request: a checkout on a slow
 * UCP store takes up to ~35 s): each one it took lengthened the stop by up to an attempt's 10 s,
 * and one it held when the process manager's timeout killed the process stayed leased to the dead
 * process for a minute, out of every other instance's reach. The built bin, a real SIGTERM.
 */

const files = binFiles('svc-commerce-stop-');
const closing: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A webhook receiver: each path's requests, in arrival order; `/hold` answers only on `release()`. */
async function receiver() {
  const arrived: string[] = [];
  const held: ServerResponse[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      arrived.push(req.url ?? '');
      for (const w of waiters.splice(0)) w();
      if (req.url === '/hold') held.push(res);
      else res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  closing.push(() => {
    server.closeAllConnections();
    return new Promise((r) => server.close(r));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    /** Resolves once a request to `path` has arrived. */
    arrival: (path: string) =>
      new Promise<void>((resolve) => {
        const look = () => (arrived.includes(path) ? resolve() : waiters.push(look));
        look();
      }),
    release: () => {
      for (const res of held.splice(0)) res.end();
    },
  };
}

describe('a SIGTERM to svc-server start', { timeout: 60_000 }, () => {
  it('claims no new delivery while the requests in flight finish', async () => {
    const hooks = await receiver();
    const child = spawn(process.execPath, [cli, 'start', '--only', 'commerce'], {
      env: files.env({ SERVICE_WEBHOOK_ALLOW_PRIVATE: '1' }),
    });
    closing.push(() => child.kill('SIGKILL'));
    let err = '';
    child.stderr.on('data', (c) => {
      err += c;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await printedUrl(child, 'commerce');
    const endpoint = async (path: string) => {
      const made = await api(url, 'POST', '/dashboard/api/webhook_endpoints', {
        body: { env: 'sandbox', url: `${hooks.url}${path}` },
      });
      expect(made.status).toBe(201);
      return made.body.id as string;
    };
    const slow = await endpoint('/hold');
    const other = await endpoint('/hook');

    // A request in flight: the dashboard's test send, which waits for the slow receiver.
    const test = api(url, 'POST', `/dashboard/api/webhook_endpoints/${slow}/test`);
    await hooks.arrival('/hold');
    child.kill('SIGTERM');
    await new Promise<void>((resolve) => {
      const look = () => (/finishing requests in flight/.test(err) ? resolve() : setTimeout(look, 10));
      look();
    });

    // Another instance's event, due now, while this one drains.
    const db = await openCommerceDatabase({
      dataDir: files.dataDir,
      databaseUrl: files.env().SERVICE_DATABASE_URL,
      databasePoolSize: TEST_POOL_SIZE,
      databasePrepare: true,
    });
    closing.push(() => db.close());
    const at = new Date().toISOString();
    const webhooks = commerceStores(db).webhooks;
    await webhooks.insertEvent({
      id: 'evt_during_stop',
      account_id: DEFAULT_ACCOUNT_ID,
      env: 'sandbox',
      type: 'checkout.updated',
      data: {},
      created_at: at,
    });
    await webhooks.insertDeliveries(
      [{ id: 'dlv_during_stop', event_id: 'evt_during_stop', endpoint_id: other }],
      at,
    );

    // The slow receiver answers: the test send is recorded (a step that, while the background
    // loop runs, also claims whatever is due) and the drain ends.
    hooks.release();
    expect((await test).status).toBe(200);
    const first = await Promise.race([
      hooks.arrival('/hook').then(() => 'claimed during the stop'),
      exited.then((code) => `exited ${code}`),
    ]);
    expect(first).toBe('exited 0');
    // Left for the next instance at once: nobody holds it.
    const row = await db.get<{ status: string; attempts: number; lease_owner: string | null }>(
      'SELECT status, attempts, lease_owner FROM deliveries WHERE id = ?',
      ['dlv_during_stop'],
    );
    expect(row).toEqual({ status: 'pending', attempts: 0, lease_owner: null });
  });
});
