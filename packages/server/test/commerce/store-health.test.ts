import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { observe } from '../../src/commerce/merchants/health.js';
import { as, type Commerce, startCommerce } from './helpers.js';
import { fixture, type LocalStore, liveUser, startLocalStore } from './long-tail-helpers.js';

const SECOND = 1000;

describe('store health from real observations', () => {
  let c: Commerce;
  let store: LocalStore;
  let url: string;
  beforeAll(async () => {
    c = await startCommerce({ storesAllowPrivate: true });
    store = await startLocalStore({ '/products/apron': { body: fixture('json-ld-single-offer.html') } });
    url = `${store.origin}/products/apron`;
  });
  afterAll(async () => {
    await store.close();
    await c.svc.close(); // the service as restarted by the last test
  });
  const offer = () => as(c.svc, c.liveKey)('POST', '/v1/offers', { url });
  const status = async () =>
    (await as(c.svc, c.liveKey)('GET', '/v1/merchants?q=127.0.0.1')).body.merchants[0]?.status;

  it('goes degraded on a failure, down after three, and answers 503 with the backoff as Retry-After', async () => {
    expect((await offer()).status).toBe(201);
    expect(await status()).toBe('healthy');

    // One rule for every failure: 503 MERCHANT_UNAVAILABLE, a short Retry-After until the store is down.
    store.mode = 'error';
    const first = await offer();
    expect(first.status).toBe(503);
    expect(first.body.error.code).toBe('MERCHANT_UNAVAILABLE');
    expect(first.headers.get('retry-after')).toBe('5');
    expect(await status()).toBe('degraded');

    store.mode = 'reset';
    const second = await offer();
    expect([second.status, second.body.error.code]).toEqual([503, 'MERCHANT_UNAVAILABLE']);
    expect(second.headers.get('retry-after')).toBe('5');
    expect(await status()).toBe('degraded');
    // The failure that makes it down already answers with the backoff.
    const third = await offer();
    expect([third.status, third.body.error.code]).toEqual([503, 'MERCHANT_UNAVAILABLE']);
    expect(third.headers.get('retry-after')).toBe('30');
    expect(await status()).toBe('down');

    const asked = store.hits.length;
    const refused = await offer();
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('MERCHANT_UNAVAILABLE');
    expect(refused.headers.get('retry-after')).toBe('30');
    c.svc.clock.advance(20 * SECOND);
    expect((await offer()).headers.get('retry-after')).toBe('10');
    // Checkouts meet the same gate.
    const user = await liveUser(c.svc, c.liveKey);
    const checkout = await user('POST', '/v1/checkouts', { product_url: url, quantity: 1 });
    expect(checkout.status).toBe(503);
    expect(checkout.headers.get('retry-after')).toBe('10');
    expect(store.hits.length).toBe(asked); // nothing reached the store while it was down
  });

  it('probes once the backoff has passed, one probe at a time; a failed probe doubles the backoff', async () => {
    c.svc.clock.advance(10 * SECOND);
    store.mode = 'hold';
    const probe = offer();
    await store.held(1);
    // While the probe waits at the store, another request is refused here rather than sent too.
    const during = await Promise.race([offer(), store.held(2).then(() => null)]);
    store.release();
    expect(during?.status).toBe(503);
    const failedProbe = await probe;
    expect(failedProbe.status).toBe(503);
    expect(failedProbe.headers.get('retry-after')).toBe('60');
    store.mode = 'error';
    const refused = await offer();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('60');
    expect(await status()).toBe('down');
  });

  it('recovers after a successful probe', async () => {
    store.mode = 'up';
    c.svc.clock.advance(59 * SECOND);
    expect((await offer()).status).toBe(503);
    c.svc.clock.advance(1 * SECOND);
    const back = await offer();
    expect(back.status).toBe(201);
    expect(back.body.price).toEqual({ amount: 1999, currency: 'USD' });
    expect(await status()).toBe('healthy');
  });

  it('an answer that is not a failure (a missing product) keeps the store healthy', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await as(c.svc, c.liveKey)('POST', '/v1/offers', { url: `${store.origin}/products/gone` });
      expect(res.body.error.code).toBe('PRODUCT_NOT_FOUND');
    }
    expect(await status()).toBe('healthy');
  });

  it('a store the catalog lists as down is probed at once after a restart', async () => {
    store.mode = 'error';
    for (let i = 0; i < 3; i++) await offer();
    expect(await status()).toBe('down');
    c.svc = await c.svc.restart();
    store.mode = 'up';
    expect((await offer()).status).toBe(201);
    expect(await status()).toBe('healthy');
  });

  it('counts timeouts like failures, and a timeout on the probe doubles the backoff too', async () => {
    expect((await offer()).status).toBe(201);
    // A store timeout takes 10 s of real time; what the adapter reports for one is recorded here as it is.
    const ctx = { db: c.svc.handle.db, clock: c.svc.clock };
    expect(await observe(ctx, 'lt_127.0.0.1', 'timeout')).toBe('degraded');
    expect(await status()).toBe('degraded');
    await observe(ctx, 'lt_127.0.0.1', 'timeout');
    expect(await observe(ctx, 'lt_127.0.0.1', 'timeout')).toBe('down');
    expect((await offer()).headers.get('retry-after')).toBe('30');
    c.svc.clock.advance(30 * SECOND);
    await observe(ctx, 'lt_127.0.0.1', 'timeout');
    expect((await offer()).headers.get('retry-after')).toBe('60');
  });
});
