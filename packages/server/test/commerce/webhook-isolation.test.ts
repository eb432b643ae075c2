import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createDispatcher,
  type Dispatcher,
  type DispatcherOptions,
  PER_ENDPOINT_CONCURRENCY,
} from '../../src/commerce/webhooks/dispatcher.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { silentLogger } from '../../src/platform/logger.js';
import { api } from '../helpers/start.js';
import {
  as,
  type Commerce,
  PROTOCOL,
  type Received,
  sandboxUser,
  startCommerce,
  startReceiver,
} from './helpers.js';

/** A receiver that reads each request and never answers it; it records when a held request is let go. */
async function startHangingReceiver() {
  const held: { event: any }[] = [];
  let released = 0;
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      held.push({ event: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.on('close', () => {
        released += 1;
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    held,
    released: () => released,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Resolves when `ready()` holds; checks after every turn of the event loop, no clock involved. */
function until(ready: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (ready() ? resolve() : setTimeout(check, 5));
    check();
  });
}

interface Delivery {
  id: string;
  event_id: string;
  status: string;
  attempts: { attempt: number; response_status: number | null }[];
}

async function deliveriesOf(c: Commerce, endpointId: string): Promise<Delivery[]> {
  const res = await api(c.svc.url, 'GET', `/dashboard/api/deliveries?endpoint_id=${endpointId}&limit=200`);
  expect(res.status).toBe(200);
  // Newest first from the API; oldest first here, the order the outbox holds them in.
  return (res.body.deliveries as Delivery[]).reverse();
}

/** A dispatch loop of its own on `c`'s database, as another instance's would be. */
function dispatcherOn(c: Commerce, more: Partial<DispatcherOptions> = {}): Dispatcher {
  return createDispatcher({
    db: c.handle.db,
    clock: c.svc.clock,
    logger: silentLogger(),
    random: () => 0.5,
    allowPrivate: true,
    ...more,
  });
}

// Each test makes tens of checkouts and waits for deliveries: 5-15 s of the default 20 s on a
// loaded 2-core machine. A dispatcher that waits wrongly still fails by this timeout.
describe('a slow webhook endpoint delays only itself', { timeout: 60_000 }, () => {
  let c: Commerce | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const f of cleanups.splice(0).reverse()) await f();
    await c?.close();
  });

  /**
   * A fresh commerce service whose only webhook endpoint is a receiver that never answers, and
   * `checkouts` checkouts made for user `user`: as many deliveries due to it, none attempted yet.
   */
  async function hangingEndpointWithDue(user: string, checkouts: number) {
    const started = await startCommerce({ webhookAllowPrivate: true });
    c = started;
    const hanging = await startHangingReceiver();
    cleanups.push(hanging.close);
    const made = await as(started.svc, started.sandboxKey)('POST', '/v1/webhook_endpoints', {
      url: hanging.url,
    });
    expect(made.status).toBe(201);
    const { call } = await sandboxUser(started.svc, started.sandboxKey, { client_user_id: user });
    for (let i = 0; i < checkouts; i++)
      await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/${user}-${i}` });
    return { c: started, hanging, endpointId: made.body.id as string };
  }

  it('delivers every event to a healthy endpoint while a hanging one still holds its first requests', async () => {
    c = await startCommerce({ webhookAllowPrivate: true });
    const hanging = await startHangingReceiver();
    cleanups.push(hanging.close);
    const healthy = await startReceiver();
    cleanups.push(healthy.close);
    const app = as(c.svc, c.sandboxKey);
    // The hanging endpoint first, so its deliveries are the older ones in the outbox.
    const slow = (await app('POST', '/v1/webhook_endpoints', { url: hanging.url })).body.id as string;
    const fast = (await app('POST', '/v1/webhook_endpoints', { url: healthy.url })).body.id as string;
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'isolation' });
    // More events than the hanging endpoint's slots, so some of its deliveries must wait.
    const events = PER_ENDPOINT_CONCURRENCY + 14;
    for (let i = 0; i < events; i++) {
      expect((await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/iso-${i}` })).status).toBe(201);
    }
    const slowQueue = await deliveriesOf(c, slow);
    const fastQueue = await deliveriesOf(c, fast);
    expect(fastQueue.length).toBeGreaterThanOrEqual(events);
    expect(slowQueue.map((d) => d.event_id)).toEqual(fastQueue.map((d) => d.event_id));

    const dispatcher = dispatcherOn(c, {
      // Shorter than the production 10 s so that, on a dispatcher that waits for the slow
      // endpoint, the test ends (and fails) instead of hanging.
      timeoutMs: 3_000,
    });
    dispatcher.start();
    cleanups.push(() => dispatcher.stop());

    // Whichever comes first: the healthy endpoint has every event (and the hanging one has taken
    // its first requests), or a hanging attempt ended.
    await until(
      () =>
        (healthy.received.length >= fastQueue.length && hanging.held.length >= PER_ENDPOINT_CONCURRENCY) ||
        hanging.released() > 0,
    );

    const got = (r: Received[]) => r.map((x) => x.event.id as string).sort();
    expect(got(healthy.received)).toEqual(fastQueue.map((d) => d.event_id).sort());
    // The hanging endpoint still holds its first requests, no more than its share of the slots:
    // the healthy deliveries did not wait for them.
    expect(hanging.released()).toBe(0);
    expect(hanging.held.map((h) => h.event.id as string).sort()).toEqual(
      slowQueue
        .slice(0, PER_ENDPOINT_CONCURRENCY)
        .map((d) => d.event_id)
        .sort(),
    );

    // When the hanging endpoint goes away, its attempts fail and are scheduled for a retry,
    // one attempt each, on the usual schedule (the manual clock has not moved).
    await hanging.close();
    await dispatcher.stop();
    const after = await deliveriesOf(c, slow);
    for (const d of after.filter((x) => x.attempts.length > 0)) {
      expect(d.status).toBe('pending');
      expect(d.attempts).toHaveLength(1);
    }
    expect(
      (await deliveriesOf(c, fast)).every((d) => d.status === 'succeeded' && d.attempts.length === 1),
    ).toBe(true);
  });

  it('lets one endpoint have PER_ENDPOINT_CONCURRENCY attempts in flight at once, and no more for any instance', async () => {
    const { c, hanging } = await hangingEndpointWithDue('sixteen', PER_ENDPOINT_CONCURRENCY + 4);
    // The timeout ends the test (and fails it) on a dispatcher that stops short of the limit.
    const dispatcher = dispatcherOn(c, { owner: 'instance-a', timeoutMs: 3_000 });
    dispatcher.start();
    cleanups.push(() => dispatcher.stop());
    await until(() => hanging.held.length >= PER_ENDPOINT_CONCURRENCY || hanging.released() > 0);
    expect(hanging.released()).toBe(0);
    expect(hanging.held).toHaveLength(PER_ENDPOINT_CONCURRENCY);
    // Another instance finds the endpoint full: the attempts in flight are counted in the database.
    expect((await dispatcherOn(c, { owner: 'instance-b' }).runDue()).attempted).toBe(0);
    expect(hanging.held).toHaveLength(PER_ENDPOINT_CONCURRENCY);
  });

  it('sizes each endpoint’s connection pool by the dispatcher’s own per-endpoint limit', async () => {
    // More than the default: the pool had a size of its own (a second constant, equal to the
    // default), so the attempts past it queued for a connection and never reached the endpoint.
    const limit = PER_ENDPOINT_CONCURRENCY + 2;
    const { c, hanging } = await hangingEndpointWithDue('pool-size', limit);
    const dispatcher = dispatcherOn(c, { owner: 'instance-a', timeoutMs: 3_000, perEndpoint: limit });
    dispatcher.start();
    cleanups.push(() => dispatcher.stop());
    // Every attempt is on the wire at once, each on a connection of its own, before any gives up.
    await until(() => hanging.held.length >= limit || hanging.released() > 0);
    expect(hanging.released()).toBe(0);
    expect(hanging.held).toHaveLength(limit);
  });

  it('gives the attempts one claim starts a single deadline between them, which still ends every one', async () => {
    const { c, hanging, endpointId } = await hangingEndpointWithDue('one-deadline', PER_ENDPOINT_CONCURRENCY);
    // Counted from here: only the dispatcher below runs (no background loop in this service).
    const timers = vi.spyOn(AbortSignal, 'timeout');
    cleanups.push(async () => timers.mockRestore());
    const summary = await dispatcherOn(c, { timeoutMs: 300 }).runDue();
    // One claim took them all and started them together: one timer for the batch, not one each
    // (a timer each was a share of every delivery's CPU). The endpoint never answers, so only
    // that deadline ended each of them: every attempt failed, and every request was let go.
    expect(summary).toEqual({
      attempted: PER_ENDPOINT_CONCURRENCY,
      succeeded: 0,
      failed: PER_ENDPOINT_CONCURRENCY,
    });
    expect(timers).toHaveBeenCalledTimes(1);
    // The receiver sees each connection close a moment after the attempt gave up on it.
    await until(() => hanging.released() === PER_ENDPOINT_CONCURRENCY);
    const attempts = (await deliveriesOf(c, endpointId)).map((d) => d.attempts[0]);
    expect(attempts).toHaveLength(PER_ENDPOINT_CONCURRENCY);
    expect(attempts.every((a) => a?.response_status === null)).toBe(true);
  });

  it("writes an outcome that ends during a claim with the next step's claim, not in a transaction of its own", async () => {
    c = await startCommerce({ webhookAllowPrivate: true });
    const db = c.handle.db;
    // Holds the first request until `answer()`.
    let answer = () => {};
    const receiver = await startReceiver();
    const answered = new Promise<void>((r) => {
      answer = r;
    });
    receiver.server.removeAllListeners('request');
    receiver.server.on('request', (req, res) => {
      req.resume();
      req.on('end', () => void answered.then(() => res.end('ok')));
    });
    cleanups.push(receiver.close);
    const endpoint = (await as(c.svc, c.sandboxKey)('POST', '/v1/webhook_endpoints', { url: receiver.url }))
      .body.id as string;
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'one-step' });
    await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/one-step` });

    // Transactions are counted; `holdNext` makes the next one wait for `release`.
    let transactions = 0;
    let held: Promise<void> | null = null;
    let release = () => {};
    const counted = {
      dialect: db.dialect,
      get: db.get.bind(db),
      all: db.all.bind(db),
      run: db.run.bind(db),
      expectWrites: () => db.expectWrites(),
      close: () => db.close(),
      async transaction(fn, opts) {
        transactions += 1;
        const wait = held;
        held = null;
        if (wait) await wait;
        return db.transaction(fn, opts);
      },
    } as SqlDatabase;
    // The clock is read for an outcome's time once its answer is in: that read says it ended.
    let reads = 0;
    const clock = {
      now: () => {
        reads += 1;
        return c!.svc.clock.now();
      },
    };
    const dispatcher = dispatcherOn(c, { db: counted, clock, pollMs: 3_600_000 });
    dispatcher.start();
    cleanups.push(() => dispatcher.stop());
    // Run first (cleanups run last to first): a failed check must not leave the claim held.
    cleanups.push(async () => {
      answer();
      release();
    });
    await until(() => transactions === 1 && reads >= 2); // claimed (one read) and sending (another)

    // A nudge's claim starts and is held; the attempt ends meanwhile.
    held = new Promise<void>((r) => {
      release = r;
    });
    dispatcher.nudge();
    await until(() => transactions === 2);
    const before = reads;
    answer();
    // Seen from a timer, so any write the outcome queued with setImmediate has started by now:
    // none has, it waits for the step after the held claim.
    await until(() => reads > before);
    expect(transactions).toBe(2);
    release();
    await dispatcher.stop();
    expect((await deliveriesOf(c, endpoint)).map((d) => d.status)).toEqual(['succeeded']);
    // The first claim, the nudge's (held), and one step that wrote the outcome and claimed.
    expect(transactions).toBe(3);
  });

  it('sends 200 deliveries to one endpoint over at most PER_ENDPOINT_CONCURRENCY connections, reused', async () => {
    c = await startCommerce({ webhookAllowPrivate: true });
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    let connections = 0;
    receiver.server.on('connection', () => {
      connections += 1;
    });
    const endpoint = (await as(c.svc, c.sandboxKey)('POST', '/v1/webhook_endpoints', { url: receiver.url }))
      .body.id as string;
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'reuse' });
    // Enough checkouts that the endpoint has at least 200 deliveries queued, four at a time. Counted
    // in the database: reading the 200-row listing after every checkout was most of this test's
    // time, and under load it ran close to its timeout.
    const queued = async () =>
      Number(
        (
          await c!.handle.db.get<{ n: number }>(
            'SELECT COUNT(*) AS n FROM deliveries WHERE endpoint_id = ?',
            [endpoint],
          )
        )?.n,
      );
    for (let i = 0; (await queued()) < 200; i += 4)
      await Promise.all(
        [0, 1, 2, 3].map(async (j) =>
          expect(
            (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/reuse-${i + j}` })).status,
          ).toBe(201),
        ),
      );
    // The background loop, as the server runs it: each step sends as the attempts before it end.
    const dispatcher = dispatcherOn(c);
    dispatcher.start();
    cleanups.push(() => dispatcher.stop());
    await until(() => receiver.received.length >= 200);
    await dispatcher.stop();
    // An unbounded pool opened a connection whenever the ones that had just answered were not yet
    // free again: more connections than attempts in flight.
    expect(connections).toBeGreaterThan(0);
    expect(connections).toBeLessThanOrEqual(PER_ENDPOINT_CONCURRENCY);
  });

  it('two dispatch loops on one database never send the same delivery twice', async () => {
    c = await startCommerce({ webhookAllowPrivate: true });
    const healthy = await startReceiver();
    cleanups.push(healthy.close);
    const endpoint = (await as(c.svc, c.sandboxKey)('POST', '/v1/webhook_endpoints', { url: healthy.url }))
      .body.id as string;
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'two-loops' });
    for (let i = 0; i < 20; i++) await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/two-${i}` });
    const [a, b] = await Promise.all([dispatcherOn(c).runDue(), dispatcherOn(c).runDue()]);
    expect(a.attempted + b.attempted).toBe(20);
    const ids = healthy.received.map((r) => r.event.id as string);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(20);
    expect((await deliveriesOf(c, endpoint)).every((d) => d.attempts.length === 1)).toBe(true);
  });
});
