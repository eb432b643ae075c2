import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DAY, MINUTE } from '../../src/platform/clock.js';
import {
  ADDRESS,
  as,
  BUYER,
  type Commerce,
  makeKey,
  PROTOCOL,
  sandboxUser,
  startCommerce,
} from './helpers.js';

const ready = { buyer: BUYER, shipping_address: ADDRESS };

describe('idempotency', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  it('replays the stored status, body and headers with Idempotent-Replayed', async () => {
    const app = as(c.svc, c.sandboxKey);
    const first = await app(
      'POST',
      '/v1/offers',
      { url: `${PROTOCOL}/mug` },
      { 'idempotency-key': 'offer-1' },
    );
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await app(
      'POST',
      '/v1/offers',
      { url: `${PROTOCOL}/mug` },
      { 'idempotency-key': 'offer-1' },
    );
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('original-request')).toBe(first.headers.get('service-request-id'));
    expect(again.headers.get('service-request-id')).not.toBe(first.headers.get('service-request-id'));
  });

  it('treats a reordered body as the same request', async () => {
    const app = as(c.svc, c.sandboxKey);
    const body1 = { client_user_id: 'ordered', rules: { max_per_order: 1, currency: 'USD' } };
    const body2 = { rules: { currency: 'USD', max_per_order: 1 }, client_user_id: 'ordered' };
    const a = await app('POST', '/v1/sandbox/public_token', body1, { 'idempotency-key': 'reorder' });
    const b = await app('POST', '/v1/sandbox/public_token', body2, { 'idempotency-key': 'reorder' });
    expect(b.body).toEqual(a.body);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
  });

  it('refuses the key for a different body, path or user with INVALID_REQUEST', async () => {
    const alice = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'alice' });
    const bob = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'bob' });
    const key = { 'idempotency-key': 'shared' };
    expect((await alice.call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/a` }, key)).status).toBe(
      201,
    );
    for (const res of [
      await alice.call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/b` }, key),
      await alice.call('POST', '/v1/offers', { url: `${PROTOCOL}/a` }, key),
      await bob.call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/a` }, key),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.param).toBe('Idempotency-Key');
    }
  });

  it('scopes keys to the API key: another key may reuse the same string', async () => {
    const other = await makeKey(c.svc, 'sandbox', 'Second app');
    const a = await as(c.svc, c.sandboxKey)(
      'POST',
      '/v1/offers',
      { url: `${PROTOCOL}/x` },
      { 'idempotency-key': 'k' },
    );
    const b = await as(c.svc, other)(
      'POST',
      '/v1/offers',
      { url: `${PROTOCOL}/y` },
      { 'idempotency-key': 'k' },
    );
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not store validation failures', async () => {
    const app = as(c.svc, c.sandboxKey);
    const bad = await app(
      'POST',
      '/v1/offers',
      { url: `${PROTOCOL}/v`, extra: 1 },
      { 'idempotency-key': 'v1' },
    );
    expect(bad.status).toBe(400);
    const worse = await app('POST', '/v1/offers', { url: 'nope' }, { 'idempotency-key': 'v1' });
    expect(worse.status).toBe(400);
    const good = await app('POST', '/v1/offers', { url: `${PROTOCOL}/v` }, { 'idempotency-key': 'v1' });
    expect(good.status).toBe(201);
  });

  it('stores an error that came from running the operation, and replays it', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey);
    const chk = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/kettle` })).body;
    const first = await call('POST', `/v1/checkouts/${chk.id}/confirm`, undefined, {
      'idempotency-key': 'early',
    });
    expect(first.status).toBe(409);
    await call('POST', `/v1/checkouts/${chk.id}/update`, ready);
    const replay = await call('POST', `/v1/checkouts/${chk.id}/confirm`, undefined, {
      'idempotency-key': 'early',
    });
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual(first.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('a keyed confirm writes its key only inside its own transactions: the claim with the first, the answer with the last', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey);
    const chk = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/mug`, ...ready })).body;
    expect(chk.status).toBe('ready_to_confirm');
    // Statements on the database itself, outside any transaction, that name this key.
    const run = vi.spyOn(c.handle.db, 'run');
    const key = { 'idempotency-key': `one-answer-${chk.id}` };
    let first: Awaited<ReturnType<typeof call>>;
    let calls: typeof run.mock.calls;
    try {
      first = await call('POST', `/v1/checkouts/${chk.id}/confirm`, undefined, key);
    } finally {
      calls = [...run.mock.calls];
      run.mockRestore();
    }
    expect(first.status).toBe(200);
    const writes = calls
      .filter(([sql, params]) => sql.includes('idempotency_keys') && JSON.stringify(params).includes(chk.id))
      .map(([sql]) => sql.trim().split(/\s/)[0]);
    expect(writes).toEqual([]);
    const replay = await call('POST', `/v1/checkouts/${chk.id}/confirm`, undefined, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('a confirm whose key was used on another checkout is refused and leaves its checkout as it was', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey);
    const one = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/mug`, ...ready })).body;
    const two = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/mug`, ...ready })).body;
    const key = { 'idempotency-key': `moved-${one.id}` };
    expect((await call('POST', `/v1/checkouts/${one.id}/confirm`, undefined, key)).status).toBe(200);
    const other = await call('POST', `/v1/checkouts/${two.id}/confirm`, undefined, key);
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'Idempotency-Key' });
    // The claim inside the second confirm's transaction found the key taken: it rolled back whole.
    expect((await call('GET', `/v1/checkouts/${two.id}`)).body.status).toBe('ready_to_confirm');
    expect((await call('POST', `/v1/checkouts/${two.id}/confirm`)).status).toBe(200);
  });

  it('answers 409 IDEMPOTENCY_KEY_IN_USE while a request holds the key, and frees a crashed one', async () => {
    const app = as(c.svc, c.sandboxKey);
    // A request that started and whose process then died: its row stays in_flight.
    const keyId = (
      (await c.handle.db.get<{ id: string }>('SELECT id FROM api_keys WHERE prefix = ?', [
        c.sandboxKey.slice(0, 12),
      ])) as { id: string }
    ).id;
    const now = c.svc.clock.now();
    const probe = await app(
      'POST',
      '/v1/offers',
      { url: `${PROTOCOL}/crash` },
      { 'idempotency-key': 'crash' },
    );
    await c.handle.db.run(
      "UPDATE idempotency_keys SET state = 'in_flight', response_status = NULL, locked_until = ? WHERE scope = ? AND key = 'crash'",
      [new Date(now.getTime() + MINUTE).toISOString(), `${keyId}:sandbox`],
    );
    const busy = await app(
      'POST',
      '/v1/offers',
      { url: `${PROTOCOL}/crash` },
      { 'idempotency-key': 'crash' },
    );
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    c.svc.clock.advance(MINUTE + 1);
    const retried = await app(
      'POST',
      '/v1/offers',
      { url: `${PROTOCOL}/crash` },
      { 'idempotency-key': 'crash' },
    );
    expect(retried.status).toBe(201);
    expect(retried.body.id).not.toBe(probe.body.id);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('forgets a key after 24 hours', async () => {
    const app = as(c.svc, c.sandboxKey);
    const a = await app('POST', '/v1/offers', { url: `${PROTOCOL}/day` }, { 'idempotency-key': 'day' });
    c.svc.clock.advance(DAY);
    const b = await app('POST', '/v1/offers', { url: `${PROTOCOL}/day` }, { 'idempotency-key': 'day' });
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
  });

  it('refuses a malformed key', async () => {
    const res = await as(c.svc, c.sandboxKey)(
      'POST',
      '/v1/offers',
      { url: `${PROTOCOL}/m` },
      { 'idempotency-key': 'x'.repeat(256) },
    );
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('Idempotency-Key');
  });

  it('50 concurrent identical confirms with one key: exactly one order, each answer the same success or a 409', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'racer' });
    const chk = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/race-bike`, ...ready }))
      .body;
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        call('POST', `/v1/checkouts/${chk.id}/confirm`, undefined, { 'idempotency-key': 'confirm-race' }),
      ),
    );
    const successes = responses.filter((r) => r.status === 200);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(successes.length + conflicts.length).toBe(50);
    expect(successes.length).toBeGreaterThanOrEqual(1);
    for (const r of successes) expect(r.body).toEqual(successes[0]?.body);
    for (const r of conflicts) expect(r.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(successes[0]?.body.status).toBe('completed');
    const orders = (await call('GET', '/v1/orders')).body.orders;
    expect(orders).toHaveLength(1);
    const after = await call('POST', `/v1/checkouts/${chk.id}/confirm`, undefined, {
      'idempotency-key': 'confirm-race',
    });
    expect(after.body).toEqual(successes[0]?.body);
  });

  it('50 concurrent confirms without a key still place one order', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'racer-2' });
    const chk = (await call('POST', '/v1/checkouts', { product_url: `${PROTOCOL}/race-car`, ...ready })).body;
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => call('POST', `/v1/checkouts/${chk.id}/confirm`)),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    // Every loser is told the checkout is no longer ready, on both engines: on PostgreSQL, where
    // the transactions run side by side, one that read the checkout before the winner committed
    // runs again (SERIALIZABLE) and then sees it confirming.
    const codes = new Set(responses.filter((r) => r.status === 409).map((r) => r.body.error.code));
    expect([...codes]).toEqual(['CHECKOUT_STATE_INVALID']);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(49);
    expect((await call('GET', '/v1/orders')).body.orders).toHaveLength(1);
  });
});
