import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import { placementLease } from '../../src/commerce/services/checkouts.js';
import { LEASE_MS, PER_ENDPOINT_CONCURRENCY } from '../../src/commerce/webhooks/dispatcher.js';
import { ManualClock } from '../../src/platform/clock.js';
import { runOutLease } from '../helpers/leases.js';
import { twoInstancesForEachTest } from '../helpers/race.js';
import { api, type TestService } from '../helpers/start.js';
import { ADDRESS, as, BUYER, makeKey, PROTOCOL, sandboxUser, startReceiver } from './helpers.js';

/**
 * Two commerce instances on ONE data directory (one SQLite file): the same setup as several
 * `svc-server start` processes on one database. A "killed" instance is one that stops without
 * giving back what it claimed: its claims come back to the other once their lease runs out.
 */
describe('commerce: two instances on one database', () => {
  const clock = new ManualClock(new Date('2026-03-02T08:30:00.000Z'));
  const instances = twoInstancesForEachTest('commerce', { clock, config: { webhookAllowPrivate: true } });
  const handle = (s: TestService) => s.handle as CommerceServiceHandle;

  it("delivers each webhook once when both dispatchers run; a dead claimer's deliveries come back after the lease", async () => {
    const { a, b } = instances;
    const receiver = await startReceiver();
    try {
      const key = await makeKey(a, 'sandbox');
      expect((await as(a, key)('POST', '/v1/webhook_endpoints', { url: receiver.url })).status).toBe(201);
      // Events come from user-visible changes: approvals and checkouts, made on either instance.
      const user = await sandboxUser(b, key);
      for (const n of [1, 2, 3])
        await user.call('POST', '/v1/checkouts', {
          product_url: `${PROTOCOL}/thing-${n}-price-1500`,
          buyer: BUYER,
          shipping_address: ADDRESS,
        });
      const [ra, rb] = await Promise.all([handle(a).dispatcher.runDue(), handle(b).dispatcher.runDue()]);
      const ids = receiver.received.map((r) => r.event.id);
      expect(ids.length).toBeGreaterThanOrEqual(3);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ra.attempted + rb.attempted).toBe(ids.length);

      // A claims the next deliveries and dies before sending them.
      await user.call('POST', '/v1/checkouts', {
        product_url: `${PROTOCOL}/thing-4-price-1500`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      });
      const now = clock.now();
      const orphaned = await handle(a).db.transaction((tx) =>
        commerceStores(tx).webhooks.claimDue(
          now.toISOString(),
          new Date(now.getTime() + LEASE_MS).toISOString(),
          'a-dead-instance',
          { limit: 100, perEndpoint: 100, dialect: handle(a).db.dialect },
        ),
      );
      expect(orphaned.length).toBeGreaterThan(0);
      expect((await handle(b).dispatcher.runDue()).attempted).toBe(0);
      clock.advance(LEASE_MS);
      const [late1, late2] = await Promise.all([
        handle(b).dispatcher.runDue(),
        handle(a).dispatcher.runDue(),
      ]);
      expect(late1.attempted + late2.attempted).toBe(orphaned.length);
      const all = receiver.received.map((r) => r.event.id);
      expect(new Set(all).size).toBe(all.length);
      expect(all).toEqual(expect.arrayContaining(orphaned.map((d) => d.event_id)));
      // The dead instance's late report of its attempt changes nothing: the delivery moved on.
      const late = await handle(a).db.transaction((tx) =>
        commerceStores(tx).webhooks.recordAttempt({
          delivery_id: orphaned[0]?.id ?? '',
          attempt: 1,
          started_at: now.toISOString(),
          status_code: 500,
          error: 'late',
          next_attempt_at: null,
          status: 'failed',
          at: clock.now().toISOString(),
          owner: 'a-dead-instance',
        }),
      );
      expect(late).toBe(false);
    } finally {
      await receiver.close();
    }
  });

  it("holds each endpoint's limit of attempts in flight across both instances' claims", async () => {
    const { a, b } = instances;
    const key = await makeKey(a, 'sandbox');
    const receiver = await startReceiver();
    try {
      expect((await as(a, key)('POST', '/v1/webhook_endpoints', { url: receiver.url })).status).toBe(201);
      const user = await sandboxUser(a, key);
      // More deliveries than the limit, so the limit (not the outbox) is what stops the claims.
      for (let n = 0; n < PER_ENDPOINT_CONCURRENCY + 2; n++)
        await user.call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/limit-${n}-price-900` });
      const now = clock.now();
      const claim = (s: TestService, owner: string) =>
        handle(s).db.transaction((tx) =>
          commerceStores(tx).webhooks.claimDue(
            now.toISOString(),
            new Date(now.getTime() + LEASE_MS).toISOString(),
            owner,
            { limit: 100, perEndpoint: PER_ENDPOINT_CONCURRENCY, dialect: handle(s).db.dialect },
          ),
        );
      // Each instance alone may take the endpoint's whole share; together they may not exceed it.
      const [fromA, fromB] = await Promise.all([claim(a, 'instance-a'), claim(b, 'instance-b')]);
      expect(fromA.length + fromB.length).toBe(PER_ENDPOINT_CONCURRENCY);
      expect(new Set([...fromA, ...fromB].map((d) => d.id)).size).toBe(PER_ENDPOINT_CONCURRENCY);
      // While those are in flight (a's or b's, unexpired), neither instance gets another.
      expect(await claim(a, 'instance-a')).toHaveLength(0);
      expect(await claim(b, 'instance-b')).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('two running dispatchers never send more than the per-endpoint limit at once, each delivery once', async () => {
    const { a, b } = instances;
    let open = 0;
    let most = 0;
    const seen: string[] = [];
    // Answers each request a little later, so attempts overlap and the overlap can be counted.
    const server = createServer((req, res) => {
      open += 1;
      most = Math.max(most, open);
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        seen.push(JSON.parse(Buffer.concat(chunks).toString('utf8')).id);
        setTimeout(() => {
          open -= 1;
          res.end('ok');
        }, 20);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const key = await makeKey(a, 'sandbox');
      expect((await as(a, key)('POST', '/v1/webhook_endpoints', { url })).status).toBe(201);
      const user = await sandboxUser(b, key);
      // Twice the limit: enough that the two dispatchers together could exceed it.
      const events = 2 * PER_ENDPOINT_CONCURRENCY;
      for (let n = 0; n < events; n++)
        await user.call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/overlap-${n}-price-900` });
      const [ra, rb] = await Promise.all([handle(a).dispatcher.runDue(), handle(b).dispatcher.runDue()]);
      expect(seen.length).toBeGreaterThanOrEqual(events);
      expect(new Set(seen).size).toBe(seen.length);
      expect(ra.attempted + rb.attempted).toBe(seen.length);
      expect(most).toBeGreaterThan(1);
      expect(most).toBeLessThanOrEqual(PER_ENDPOINT_CONCURRENCY);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('a placement stuck on a dead instance is recovered once, by another, after its lease runs out', async () => {
    const { a, b } = instances;
    const key = await makeKey(a, 'sandbox');
    const user = await sandboxUser(a, key);
    const made = await user.call('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/slow-order-multi-price-2000`,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(made.body.status).toBe('ready_to_confirm');
    const id = made.body.id as string;
    // A moves the checkout to `confirming` and dies in the store call: nothing after is written.
    const db = handle(a).db;
    const confirm = user.call('POST', `/v1/checkouts/${id}/confirm`, undefined, {
      'idempotency-key': 'k-multi',
    });
    const status = async () =>
      (await db.get<{ status: string }>('SELECT status FROM checkouts WHERE id = ?', [id]))?.status;
    while ((await status()) !== 'confirming') await new Promise((r) => setImmediate(r));
    void db.close();
    expect((await confirm).status).toBe(500);

    // B's recovery (at start-up or on its beat) leaves a placement under lease alone.
    await handle(b).recover();
    const userB = as(b, key, user.userToken);
    expect((await userB('GET', `/v1/checkouts/${id}`)).body.status).toBe('confirming');
    await runOutLease(handle(b).db, placementLease(id));
    await Promise.all([handle(b).recover(), handle(b).recover()]);
    const done = (await userB('GET', `/v1/checkouts/${id}`)).body;
    expect(['completed', 'failed']).toContain(done.status);
    const orders = await handle(b).db.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM orders WHERE checkout_id = ?',
      [id],
    );
    expect(orders?.n).toBe(done.status === 'completed' ? 1 : 0);
  });

  it('a key revoked on one instance is refused by the other on its very next request', async () => {
    const { a, b } = instances;
    const made = (
      await api(a.url, 'POST', '/dashboard/api/api_keys', { body: { env: 'sandbox', name: 'Shared' } })
    ).body;
    expect((await as(b, made.key)('GET', '/v1/merchants')).status).toBe(200);
    expect((await api(a.url, 'POST', `/dashboard/api/api_keys/${made.id}/revoke`)).status).toBe(200);
    const refused = await as(b, made.key)('GET', '/v1/merchants');
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBeDefined();
  });
});
