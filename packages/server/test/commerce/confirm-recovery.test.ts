import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CommerceServiceHandle, createCommerceApp } from '../../src/commerce/app.js';
import { createCommerceApiKey } from '../../src/commerce/services/api-keys.js';
import { PLACEMENT_LEASE_MS, placementLease } from '../../src/commerce/services/checkouts.js';
import { testConfig } from '../../src/config.js';
import { ManualClock } from '../../src/platform/clock.js';
import { randomIds } from '../../src/platform/ids.js';
import { silentLogger } from '../../src/platform/logger.js';
import { listen } from '../../src/platform/service.js';

import { runOutLease } from '../helpers/leases.js';
import { startTestService, type TestService } from '../helpers/start.js';
import { ADDRESS, as, BUYER, type Call, makeKey, PROTOCOL, sandboxUser } from './helpers.js';

/**
 * What a crash during confirm leaves behind, made deterministic: the database is pulled from
 * under the server at a chosen point of a keyed confirm (nothing after that point is written, as
 * after kill -9), then the service restarts on the same data directory. The kill -9 test
 * (crash-recovery.test.ts) does the same with real kills at random points.
 */
const ready = { buyer: BUYER, shipping_address: ADDRESS };
// 20.00 + 5.99 shipping + 1.65 tax = 27.64 per checkout.
const TOTAL = 2764;

let svc: TestService | null = null;
afterEach(async () => {
  await svc?.close();
  svc = null;
});

async function start(rules?: Record<string, unknown>) {
  svc = await startTestService('commerce');
  const key = await makeKey(svc, 'sandbox');
  const { userToken } = await sandboxUser(svc, key, rules ? { rules } : {});
  // Follows the service across restarts (a restart listens on a new port).
  const call: Call = (...args) => as(svc as TestService, key, userToken)(...args);
  return { key, user: { call } };
}

async function readyCheckout(call: Call, name: string): Promise<string> {
  const res = await call('POST', '/v1/checkouts', {
    product_url: `${PROTOCOL}/slow-order-${name}-price-2000`,
    ...ready,
  });
  expect(res.body.status).toBe('ready_to_confirm');
  expect(res.body.totals.total.amount).toBe(TOTAL);
  return res.body.id;
}

/** Starts a keyed confirm and "kills" the server once it reaches `point`. */
async function crashDuringConfirm(call: Call, id: string, key: string, point: 'before' | 'after') {
  const s = svc as TestService;
  const db = s.handle.db;
  const confirm = call('POST', `/v1/checkouts/${id}/confirm`, undefined, { 'idempotency-key': key });
  // `slow-order` keeps the store busy 25 ms on each side of recording the order.
  const reached = async () =>
    point === 'before'
      ? (await db.get<{ status: string }>('SELECT status FROM checkouts WHERE id = ?', [id]))?.status ===
        'confirming'
      : (await db.get('SELECT 1 AS one FROM sandbox_store_orders WHERE checkout_id = ?', [id])) !== undefined;
  while (!(await reached())) await new Promise((r) => setImmediate(r));
  await s.handle.db.close();
  expect((await confirm).status).toBe(500);
  // In this process the dead server's pid is still alive, so nothing tells the restart it died
  // but its leases running out (after a real kill -9 a restart on the same machine takes over at
  // once: crash-recovery.test.ts): the Idempotency-Key's claim on the service's clock, the
  // placement lease on the database's. No recovery has run yet.
  s.clock.advance(PLACEMENT_LEASE_MS);
  svc = await s.restart();
  await runOutLease((svc.handle as CommerceServiceHandle).db, placementLease(id));
}

async function waitWhileConfirming(call: Call, id: string) {
  let c = (await call('GET', `/v1/checkouts/${id}`)).body;
  for (let i = 0; c.status === 'confirming' && i < 400; i++) {
    await new Promise((r) => setTimeout(r, 5));
    c = (await call('GET', `/v1/checkouts/${id}`)).body;
  }
  return c;
}

const eventTypes = async (id: string) =>
  (
    await (svc as TestService).handle.db.all<{ type: string; data: string }>(
      // Insertion order (created_at ties within one confirm under the manual clock).
      'SELECT type, data FROM events ORDER BY seq',
    )
  )
    .filter((e) => [JSON.parse(e.data).id, JSON.parse(e.data).checkout_id].includes(id))
    .map((e) => e.type);

describe('a confirm interrupted by a crash', () => {
  it('start-up recovery completes it with the order the store placed, and answers its key in that commit', async () => {
    const { user } = await start();
    const id = await readyCheckout(user.call, 'placed');
    await crashDuringConfirm(user.call, id, 'confirm-placed', 'after');
    (svc as TestService).handle.startBackground();

    const done = await waitWhileConfirming(user.call, id);
    expect(done.status).toBe('completed');
    const order = (await user.call('GET', `/v1/orders/${done.order_id}`)).body;
    const ledger = (await (svc as TestService).handle.db.get<{ merchant_order_ref: string }>(
      'SELECT merchant_order_ref FROM sandbox_store_orders WHERE checkout_id = ?',
      [id],
    )) as { merchant_order_ref: string };
    expect(order.merchant_order_ref).toBe(ledger.merchant_order_ref);
    expect((await eventTypes(id)).filter((t) => t !== 'checkout.updated')).toEqual([
      'checkout.completed',
      'order.updated',
    ]);

    // Recovery stored the key's answer: the retry is a replay of the completed checkout, not a 409.
    const retry = await user.call('POST', `/v1/checkouts/${id}/confirm`, undefined, {
      'idempotency-key': 'confirm-placed',
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(done);
    const orders = (await (svc as TestService).handle.db.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM orders WHERE checkout_id = ?',
      [id],
    )) as { n: number };
    expect(orders.n).toBe(1);
  });

  it('a retry with the same key right after the restart takes the key over and answers with the outcome', async () => {
    const { user } = await start();
    const id = await readyCheckout(user.call, 'retried');
    await crashDuringConfirm(user.call, id, 'confirm-retried', 'before');
    // No recovery has run yet: the retry finds the key claimed by the dead process.
    const retry = await user.call('POST', `/v1/checkouts/${id}/confirm`, undefined, {
      'idempotency-key': 'confirm-retried',
    });
    expect(retry.status).toBe(200);
    expect(retry.body.status).toBe('failed');
    expect(retry.body.error.code).toBe('ORDER_NOT_PLACED');
    expect(retry.body.order_id).toBeNull();
    expect(await eventTypes(id)).toContain('checkout.failed');
    const again = await user.call('POST', `/v1/checkouts/${id}/confirm`, undefined, {
      'idempotency-key': 'confirm-retried',
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(retry.body);
    // Without the key, a repeat is refused as before: the checkout is final.
    expect((await user.call('POST', `/v1/checkouts/${id}/confirm`)).status).toBe(409);
  });

  it('counts against max_per_day only while the store may have placed it', async () => {
    const { user } = await start({ max_per_day: TOTAL * 2 - 1, currency: 'USD' });
    const stuck = await readyCheckout(user.call, 'stuck');
    const next = await readyCheckout(user.call, 'next');
    await crashDuringConfirm(user.call, stuck, 'confirm-stuck', 'before');

    // Still confirming: it may have been placed, so it counts and the next one does not fit.
    const refused = await user.call('POST', `/v1/checkouts/${next}/confirm`);
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('MAX_PER_DAY_EXCEEDED');

    ((svc as TestService).handle as CommerceServiceHandle).startBackground();
    const failed = await waitWhileConfirming(user.call, stuck);
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('ORDER_NOT_PLACED');
    // Failed with no order: it no longer counts, and cancel is refused because it is final.
    expect((await user.call('POST', `/v1/checkouts/${stuck}/cancel`)).status).toBe(409);
    const placed = await user.call('POST', `/v1/checkouts/${next}/confirm`);
    expect(placed.status).toBe(200);
    expect(placed.body.status).toBe('completed');
  });

  it('is also found by the periodic pass once it is older than a minute', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-recover-'));
    const clock = new ManualClock();
    const handle = await createCommerceApp({
      config: testConfig({ dataDir }),
      clock,
      ids: randomIds,
      logger: silentLogger(),
      recoverEveryMs: 10,
    });
    const listening = await listen(handle, '127.0.0.1', 0);
    try {
      handle.startBackground();
      const { key } = await createCommerceApiKey(
        handle.db,
        { clock, ids: randomIds },
        { env: 'sandbox', name: 'periodic' },
      );
      const { call } = await sandboxUser(listening, key);
      const id = await readyCheckout(call, 'periodic');
      // A confirm this process is not running, handed to the store more than a minute ago:
      // what a process that died mid-confirm leaves while another one serves the data.
      await handle.db.run("UPDATE checkouts SET status = 'confirming', confirmed_at = ? WHERE id = ?", [
        clock.now().toISOString(),
        id,
      ]);
      clock.advance(61_000);
      const done = await waitWhileConfirming(call, id);
      expect(done.status).toBe('failed');
      expect(done.error.code).toBe('ORDER_NOT_PLACED');
    } finally {
      await listening.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
