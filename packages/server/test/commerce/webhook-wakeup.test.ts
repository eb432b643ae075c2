import { afterEach, describe, expect, it } from 'vitest';
import type { SqliteDatabase } from '../../src/platform/db/sqlite.js';
import { sameDatabase, startTestService, type TestService } from '../helpers/start.js';
import { as, makeKey, PROTOCOL, sandboxUser, startReceiver } from './helpers.js';

/** Resolves when `ready()` holds; checks every few milliseconds, and the test's timeout ends a wait that never does. */
function until(ready: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (ready() ? resolve() : setTimeout(check, 5));
    check();
  });
}

/** Longer than any test: a delivery that arrives did not wait for the poll. */
const AN_HOUR = 3_600_000;

describe('the dispatcher wakes for events', () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const f of cleanups.splice(0).reverse()) await f();
  });

  async function commerce(opts: Parameters<typeof startTestService>[1]) {
    const svc = await startTestService('commerce', {
      ...opts,
      config: { webhookAllowPrivate: true, ...opts?.config },
    });
    cleanups.push(() => svc.close());
    return svc;
  }

  it('sends an event written on this instance at once, without waiting for the poll', async () => {
    const svc = await commerce({ background: true, webhookPollMs: AN_HOUR });
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const key = await makeKey(svc, 'sandbox');
    expect((await as(svc, key)('POST', '/v1/webhook_endpoints', { url: receiver.url })).status).toBe(201);
    const { call } = await sandboxUser(svc, key);
    // The first checkout may be found by the loop's first step at start; the second only by the
    // nudge its write gives the dispatcher (the poll is an hour away).
    for (const [n, name] of ['wake-first', 'wake-second'].entries()) {
      const made = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/${name}` })).body;
      await until(() => receiver.received.some((r) => r.event.data.id === made.id));
      expect(receiver.received.filter((r) => r.event.type === 'checkout.updated')).toHaveLength(n + 1);
    }
  });

  it('gets the database ready for its writes at its first delivery, not at start', async () => {
    const svc = await commerce({ background: true, webhookPollMs: AN_HOUR });
    // SQLite: whether WAL checkpoints have moved to their thread. PostgreSQL has nothing to get
    // ready, and there the test checks only that delivering is unchanged.
    const handedOff = () =>
      svc.handle.db.dialect === 'sqlite' ? (svc.handle.db as SqliteDatabase).checkpoints?.handedOff() : true;
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const key = await makeKey(svc, 'sandbox');
    expect((await as(svc, key)('POST', '/v1/webhook_endpoints', { url: receiver.url })).status).toBe(201);
    // Started, with an endpoint, but nothing sent yet: a server that never delivers keeps no thread.
    if (svc.handle.db.dialect === 'sqlite') expect(handedOff()).toBe(false);
    const { call } = await sandboxUser(svc, key);
    const made = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/ready-first` })).body;
    await until(() => receiver.received.some((r) => r.event.data.id === made.id));
    // Far fewer commits than the busy count (BUSY_AFTER) so far: the first delivery did it.
    expect(handedOff()).toBe(true);
    const again = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/ready-second` })).body;
    await until(() => receiver.received.some((r) => r.event.data.id === again.id));
    const sent = receiver.received.map((r) => r.event.id as string);
    expect(new Set(sent).size).toBe(sent.length);
  });

  it("delivers another instance's events by polling, once each", async () => {
    // `a` sends and polls; `b` only writes (no dispatcher running there, so its nudges go nowhere).
    const a: TestService = await commerce({ background: true, webhookPollMs: 20 });
    // One clock, so what `b` makes due is due for `a`; on SQLite the shared data directory is the database.
    const b = await commerce({ clock: a.clock, dataDir: a.dataDir, config: sameDatabase(a) });
    const receiver = await startReceiver();
    cleanups.push(receiver.close);
    const key = await makeKey(a, 'sandbox');
    expect((await as(b, key)('POST', '/v1/webhook_endpoints', { url: receiver.url })).status).toBe(201);
    const { call } = await sandboxUser(b, key);
    const ids: string[] = [];
    for (let n = 0; n < 3; n++)
      ids.push((await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/polled-${n}` })).body.id);
    await until(() => ids.every((id) => receiver.received.some((r) => r.event.data.id === id)));
    const sent = receiver.received.map((r) => r.event.id as string);
    expect(new Set(sent).size).toBe(sent.length);
  });
});
