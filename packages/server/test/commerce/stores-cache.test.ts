import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commerceStores } from '../../src/commerce/db/stores.js';
import { ADDRESS, as, BUYER, type Commerce, PROTOCOL, sandboxUser, startCommerce } from './helpers.js';

/**
 * `commerceStores(db)` is built once per executor (a WeakMap keyed by the executor). Two services
 * in one process, each on its own database, are the case a cache keyed wrongly (by nothing, by
 * the dialect, by the first database it saw) would get wrong: one service would read the other's
 * keys, tokens and checkouts. Each request below alternates between them.
 */
describe('commerce stores, built once per executor', () => {
  let a: Commerce;
  let b: Commerce;
  beforeAll(async () => {
    [a, b] = await Promise.all([startCommerce(), startCommerce()]);
  });
  afterAll(() => Promise.all([a?.close(), b?.close()]));

  it('serves each database its own stores, and a transaction stores bound to it', async () => {
    const [dbA, dbB] = [a.handle.db, b.handle.db];
    expect(commerceStores(dbA)).toBe(commerceStores(dbA));
    expect(commerceStores(dbA)).not.toBe(commerceStores(dbB));
    // A write through the transaction's stores is rolled back with it: they are bound to the
    // transaction, not to the database's bundle.
    const rolledBack = dbA.transaction(async (tx) => {
      const s = commerceStores(tx);
      expect(s).not.toBe(commerceStores(dbA));
      await s.leases.take('stores-cache-test', 'me', 60_000, dbA.dialect);
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(await commerceStores(dbA).leases.take('stores-cache-test', 'other', 60_000, dbA.dialect)).toBe(
      true,
    );
  });

  it("answers each service's requests from its own database, interleaved", async () => {
    const userA = await sandboxUser(a.svc, a.sandboxKey);
    const userB = await sandboxUser(b.svc, b.sandboxKey);
    const made = await userA.call('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/mug`,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(made.status).toBe(201);
    const path = `/v1/checkouts/${made.body.id}`;
    for (let round = 0; round < 3; round++) {
      expect((await userA.call('GET', path)).status).toBe(200);
      // A's key, A's user token and A's checkout are unknown to B, however often A was just asked.
      const keyOfA = await as(b.svc, a.sandboxKey, userA.userToken)('GET', path);
      expect(keyOfA.status).toBe(401);
      expect(keyOfA.body.error.code).toBe('INVALID_API_KEY');
      const tokenOfA = await as(b.svc, b.sandboxKey, userA.userToken)('GET', path);
      expect(tokenOfA.status).toBe(401);
      expect(tokenOfA.body.error.code).toBe('INVALID_USER_TOKEN');
      const checkoutOfA = await userB.call('GET', path);
      expect(checkoutOfA.status).toBe(404);
      expect(checkoutOfA.body.error.code).toBe('NOT_FOUND');
    }
  });
});
