import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import { interleave, settledValue, twoInstances } from '../helpers/race.js';
import { ADDRESS, as, BUYER, makeKey, PROTOCOL, sandboxUser, twoCheckoutsOverMaxPerDay } from './helpers.js';

/**
 * Checkouts are written back whole. A write decided on a read that another request (or instance)
 * has since overtaken must not put the older state back: it lands only on the version it read.
 */
describe('checkout writes under concurrent requests on two instances', () => {
  let instances: Awaited<ReturnType<typeof twoInstances>>;
  let key: string;
  const dbOf = (i: 'a' | 'b') => (instances[i].handle as CommerceServiceHandle).db;
  beforeAll(async () => {
    instances = await twoInstances('commerce');
    key = await makeKey(instances.a, 'sandbox');
  });
  afterAll(() => instances.close());

  it('the confirm page opened while the app cancels the checkout does not bring it back: it stays canceled', async () => {
    const { userToken } = await sandboxUser(instances.a, key, { rules: { confirm_above: 1000 } });
    const onA = as(instances.a, key, userToken);
    const chk = (
      await onA('POST', '/v1/checkouts', {
        product_url: `${PROTOCOL}/price-4200-desk`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      })
    ).body;
    expect(chk.next_action.type).toBe('user_confirmation');
    const pageOnB = new URL(chk.next_action.url);
    pageOnB.host = new URL(instances.b.url).host;

    // Instance b reads the checkout to render the page; instance a cancels it; b writes its form token.
    const race = interleave(dbOf('a'), dbOf('b'));
    const [canceled, page] = await race.run(
      () => onA('POST', `/v1/checkouts/${chk.id}/cancel`),
      () => fetch(pageOnB),
    );
    expect(settledValue(canceled).status).toBe(200);
    expect(settledValue(page).status).toBe(410);
    const after = await onA('GET', `/v1/checkouts/${chk.id}`);
    expect(after.body.status).toBe('canceled');
  });

  it('two confirms for one user at once on two instances: the second sees the first under max_per_day, no spending is lost', async () => {
    const { onA, onB, one, two } = await twoCheckoutsOverMaxPerDay(instances, key);

    // b gets as far as its confirm transaction before a confirms. The spending check is inside that
    // transaction, so it sees a's confirm: this held before issue 19 too (SQLite serialises writers)
    // and guards against the sum ever moving out of the transaction that acts on it.
    const race = interleave(dbOf('a'), dbOf('b'));
    const [first, second] = await race.run(
      () => onA('POST', `/v1/checkouts/${one}/confirm`),
      () => onB('POST', `/v1/checkouts/${two}/confirm`),
    );
    expect(settledValue(first).body.status).toBe('completed');
    expect(settledValue(second).status).toBe(422);
    expect(settledValue(second).body.error.code).toBe('MAX_PER_DAY_EXCEEDED');
    expect((await onA('GET', '/v1/orders')).body.orders).toHaveLength(1);
  });
});
