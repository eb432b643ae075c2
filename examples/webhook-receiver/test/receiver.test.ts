// Two layers: the route itself with hand-signed deliveries (verification, duplicates, read-back,
// retries), and main.mjs --demo as a separate process against a real commerce service whose
// dispatcher delivers to it, as CI does.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createCommerceApiKey,
  createCommerceApp,
  type Listening,
  listen,
  randomIds,
  silentLogger,
  systemClock,
  testConfig,
} from '@svc/server';
import { createTestEngineDatabase, type TestEngineDatabase } from '@svc/server/testing';
import { signPayload } from '@svc/webhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error the example is plain JavaScript, without declarations.
import { createReceiver } from '../receiver.mjs';

const run = promisify(execFile);
const SECRET = 'whsec_receiver_test';

describe('the webhook route', () => {
  let server: Server;
  let url: string;
  let lines: string[];
  let reads: number;
  let failReads: number;

  // A stand-in for client.forUser(token): the service's copy is newer than the event's.
  const current = { id: 'chk_1', user_id: 'usr_1', status: 'completed', order_id: 'ord_1' };
  const user = {
    checkouts: {
      retrieve: async (id: string) => {
        reads++;
        if (failReads > 0) {
          failReads--;
          throw new Error('service unavailable');
        }
        return { ...current, id };
      },
    },
    orders: { retrieve: async (id: string) => ({ id, status: 'shipped' }) },
  };

  beforeAll(async () => {
    const app = createReceiver({
      secret: () => SECRET,
      clientFor: (userId: string) => (userId === 'usr_1' ? user : undefined),
      log: (line: string) => lines.push(line),
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/svc`;
  });
  afterAll(() => new Promise<void>((done) => server.close(() => done())));
  afterEach(() => {
    lines = [];
    reads = 0;
    failReads = 0;
  });
  lines = [];
  reads = 0;
  failReads = 0;

  const event = (id: string, type: string, data: object) =>
    JSON.stringify({ id, type, created_at: '2026-01-05T09:00:00.000Z', data });
  const deliver = (body: string, secret = SECRET) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'service-signature': signPayload(body, secret) },
      body,
    });

  it('verifies, reads the checkout back, and acts on the current status once', async () => {
    const stale = event('evt_1', 'checkout.updated', { ...current, status: 'ready_to_confirm' });
    const completed = event('evt_2', 'checkout.completed', current);
    expect((await deliver(stale)).status).toBe(204);
    expect((await deliver(completed)).status).toBe(204);
    expect(lines).toEqual([
      'evt_1 checkout.updated: checkout chk_1 is completed (the event says ready_to_confirm)',
      'fulfil: checkout chk_1 placed order ord_1',
      'evt_2 checkout.completed: checkout chk_1 is completed',
    ]);
  });

  it('answers a duplicate with 200 and does not handle it again', async () => {
    const body = event('evt_3', 'order.updated', { id: 'ord_1', user_id: 'usr_1', status: 'placed' });
    expect((await deliver(body)).status).toBe(204);
    expect((await deliver(body)).status).toBe(200);
    expect(lines).toEqual([
      'evt_3 order.updated: order ord_1 is shipped',
      'evt_3 order.updated: duplicate, ignored',
    ]);
  });

  it('rejects a bad signature with 400 and its code', async () => {
    const response = await deliver(event('evt_4', 'checkout.updated', current), 'whsec_someone_else');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'signature_mismatch' });
    const unsigned = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unsigned.status).toBe(400);
    expect(reads).toBe(0);
  });

  it('answers 500 when handling fails, so the retry runs it again', async () => {
    failReads = 1;
    const body = event('evt_5', 'checkout.failed', { ...current, status: 'failed' });
    expect((await deliver(body)).status).toBe(500);
    expect((await deliver(body)).status).toBe(204);
    expect(reads).toBe(2);
  });

  it('acknowledges event types it does not know', async () => {
    expect((await deliver(event('evt_6', 'checkout.refunded', { id: 'x' }))).status).toBe(204);
    expect(lines).toEqual(['evt_6 checkout.refunded: acknowledged']);
  });
});

describe('main.mjs --demo against a real commerce service', () => {
  let listening: Listening;
  let dataDir: string;
  // SQLite in dataDir, or a fresh PostgreSQL database when SVC_TEST_DATABASE=postgres.
  let database: TestEngineDatabase;
  let key: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-example-webhooks-'));
    database = await createTestEngineDatabase();
    // webhookAllowPrivate is SERVICE_WEBHOOK_ALLOW_PRIVATE=1: deliveries to 127.0.0.1 over http.
    const deps = {
      config: testConfig({ dataDir, ...database.config, webhookAllowPrivate: true }),
      clock: systemClock,
      ids: randomIds,
      logger: silentLogger(),
    };
    const handle = await createCommerceApp(deps);
    ({ key } = await createCommerceApiKey(handle.db, deps, { env: 'sandbox', name: 'Webhook example' }));
    // The dispatcher runs in the background and is nudged as soon as events are written, so
    // deliveries go out at once.
    handle.startBackground();
    listening = await listen(handle, '127.0.0.1', 0);
  });

  afterAll(async () => {
    await listening?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('registers, receives the purchase’s events verified, and reads the checkout back', async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(import.meta.dirname, '..', 'main.mjs'), '--demo'],
      {
        env: { ...process.env, SERVICE_API_URL: listening.url, SERVICE_API_KEY: key, PORT: '0' },
      },
    );
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Registered whk_\w+ for http:\/\/127\.0\.0\.1:\d+\/webhooks\/svc$/m);
    expect(stdout).toMatch(/^evt_\w+ checkout\.completed: checkout chk_\w+ is completed$/m);
    expect(stdout).toMatch(/^evt_\w+ order\.updated: order ord_\w+ is placed$/m);
    expect(stdout.match(/^fulfil: /gm)).toHaveLength(1);
    expect(stdout).not.toMatch(/rejected a delivery/);
    expect(stdout).toMatch(/^Demo: done$/m);
  });

  it('explains how to allow a local URL when the service refuses it', async () => {
    const strictDir = mkdtempSync(join(tmpdir(), 'svc-example-webhooks-strict-'));
    const strictDatabase = await createTestEngineDatabase();
    const deps = {
      config: testConfig({ dataDir: strictDir, ...strictDatabase.config }),
      clock: systemClock,
      ids: randomIds,
      logger: silentLogger(),
    };
    const handle = await createCommerceApp(deps);
    const { key: strictKey } = await createCommerceApiKey(handle.db, deps, {
      env: 'sandbox',
      name: 'Strict',
    });
    const strict = await listen(handle, '127.0.0.1', 0);
    try {
      const error = await run(process.execPath, [join(import.meta.dirname, '..', 'main.mjs')], {
        env: { ...process.env, SERVICE_API_URL: strict.url, SERVICE_API_KEY: strictKey, PORT: '0' },
      }).catch((e: { code: number; stderr: string }) => e);
      expect(error).toMatchObject({ code: 1 });
      expect((error as { stderr: string }).stderr).toMatch(/SERVICE_WEBHOOK_ALLOW_PRIVATE=1/);
    } finally {
      await strict.stop();
      rmSync(strictDir, { recursive: true, force: true });
      await strictDatabase.drop();
    }
  });
});
