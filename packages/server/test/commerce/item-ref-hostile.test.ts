import { describe, expect, it } from 'vitest';
import type { UcpStore } from '../fakes/ucp-store.js';
import { ADDRESS, BUYER, type Call } from './helpers.js';
import { liveServiceAndUser, ucpStores } from './ucp-helpers.js';

/**
 * A store decides how many variants a product has and how long their ids are. An `item_ref` that
 * names none of them is refused with the documented 400, whose message names a few and counts the
 * rest: it used to list every id, so a store's ids came back to the caller as a message of hundreds of KB
 * (330 KB from a 3 MiB product page: bench/hostile-pages.mjs with BENCH_ITEM_REF).
 */
describe('item_ref against a product with thousands of long variant ids', () => {
  const live = liveServiceAndUser();
  const user: Call = (...args) => live.user(...args);
  const store = ucpStores();
  const VARIANTS = 1500;
  const LONG = 'x'.repeat(180);

  const manyVariants = async (): Promise<UcpStore> => {
    const s = await store();
    s.products.push({
      id: 'prod_many',
      handle: 'many',
      title: 'Many',
      variants: Array.from({ length: VARIANTS }, (_, i) => ({
        id: `var_${LONG}_${i}`,
        sku: `sku_${i}`,
        title: `Variant ${i}`,
        price: 1000 + i,
        status: 'in_stock' as const,
      })),
    });
    return s;
  };

  const expectBoundedRefusal = (res: Awaited<ReturnType<Call>>) => {
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', param: 'item_ref' });
    expect(res.body.error.request_id).toMatch(/^req_/);
    const message: string = res.body.error.message;
    expect(message).toContain(`and ${VARIANTS - 5} more`);
    expect(message).toContain(`var_${LONG.slice(0, 96)}…`);
    expect(message.length).toBeLessThan(1000);
  };

  it('POST /v1/offers: a 400 naming five variants and counting the rest', async () => {
    const s = await manyVariants();
    expectBoundedRefusal(
      await user('POST', '/v1/offers', { url: s.productUrl('many'), item_ref: 'n'.repeat(200) }),
    );
    // The offer itself still lists every variant, and a named one comes first.
    const named = await user('POST', '/v1/offers', {
      url: s.productUrl('many'),
      item_ref: `var_${LONG}_${VARIANTS - 1}`,
    });
    expect(named.status).toBe(201);
    expect(named.body.variants).toHaveLength(VARIANTS);
    expect(named.body.item_ref).toBe(`var_${LONG}_${VARIANTS - 1}`);
  });

  it('POST /v1/checkouts from the offer: the same bounded 400, and nothing is opened at the store', async () => {
    const s = await manyVariants();
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('many') });
    expect(offer.status).toBe(201);
    expectBoundedRefusal(
      await user('POST', '/v1/checkouts', {
        offer_id: offer.body.id,
        item_ref: 'n'.repeat(200),
        buyer: BUYER,
        shipping_address: ADDRESS,
      }),
    );
    expect(s.sessions.size).toBe(0);
  });
});
