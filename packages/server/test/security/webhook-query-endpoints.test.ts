// Tenth pass (outside attack on stop 31): the dispatcher's kept-alive connections are pooled per
// endpoint so that "a path that hangs holds only its own connections". The pool was keyed by
// origin and path without the query string, so two endpoints that differ only in their query
// (one receiver that routes by `?merchant=`, a relay that takes its token in the query) shared
// 16 connections: one hanging filled them, and the other's attempts queued behind it until the
// shared deadline failed them unsent. Over real HTTP: the built-in dispatcher's code against one
// local receiver that holds `?who=slow` and answers `?who=fast`, on both engines.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDispatcher, PER_ENDPOINT_CONCURRENCY } from '../../src/commerce/webhooks/dispatcher.js';
import { silentLogger } from '../../src/platform/logger.js';
import { as, type Commerce, PROTOCOL, sandboxUser, startCommerce } from '../commerce/helpers.js';
import { api } from '../helpers/start.js';

function until(ready: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (ready() ? resolve() : setTimeout(check, 5));
    check();
  });
}

describe('endpoints that differ only in their query string', () => {
  let c: Commerce | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const f of cleanups.splice(0).reverse()) await f();
    await c?.close();
  });

  it('do not share connections: one that hangs does not hold the other', async () => {
    c = await startCommerce({ webhookAllowPrivate: true });
    const seen = { slow: 0, fast: 0, released: 0 };
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url?.endsWith('?who=slow')) {
          seen.slow += 1;
          res.on('close', () => (seen.released += 1));
          return; // never answered
        }
        seen.fast += 1;
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    cleanups.push(
      () =>
        new Promise((r) => {
          receiver.closeAllConnections();
          receiver.close(r);
        }),
    );
    const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const app = as(c.svc, c.sandboxKey);
    const slow = await app('POST', '/v1/webhook_endpoints', { url: `${base}?who=slow` });
    const fast = await app('POST', '/v1/webhook_endpoints', { url: `${base}?who=fast` });
    expect([slow.status, fast.status]).toEqual([201, 201]);
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'query-pools' });
    // More events than an endpoint's slots, so the hanging one fills all of its own.
    const events = PER_ENDPOINT_CONCURRENCY + 4;
    for (let i = 0; i < events; i++)
      expect((await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/q-${i}` })).status).toBe(201);

    const dispatcher = createDispatcher({
      db: c.handle.db,
      clock: c.svc.clock,
      logger: silentLogger(),
      random: () => 0.5,
      allowPrivate: true,
      // Ends the test (failing) on a pool that makes the fast endpoint wait for the slow one.
      timeoutMs: 3_000,
    });
    dispatcher.start();
    cleanups.push(() => dispatcher.stop());
    await until(() => (seen.fast >= events && seen.slow >= PER_ENDPOINT_CONCURRENCY) || seen.released > 0);
    expect(seen.released).toBe(0);
    expect(seen.slow).toBe(PER_ENDPOINT_CONCURRENCY);
    expect(seen.fast).toBe(events);
    // Outcomes are written by the dispatcher's next step: wait for them, still before any timeout.
    const succeeded = async () => {
      const res = await api(
        c?.svc.url ?? '',
        'GET',
        `/dashboard/api/deliveries?endpoint_id=${fast.body.id}&limit=200`,
      );
      expect(res.status).toBe(200);
      return res.body.deliveries.filter((d: { status: string }) => d.status === 'succeeded').length;
    };
    await expect.poll(succeeded).toBe(events);
    expect(seen.released).toBe(0);
  });
});
