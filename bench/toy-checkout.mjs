// The checkout the client benches read: the shape and size of one svc answers, shared by the toy
// server (client-retrieve.mjs), the in-process stand-in (client-own-cost.mjs) and the address the
// commerce case creates its checkouts with (cases/commerce.mjs).

export const TOY_CHECKOUT_ID = 'chk_01JBENCHTOY0000000000000';

export const ADDRESS = {
  name: 'Ada Lovelace',
  line1: '1 Main St',
  city: 'Springfield',
  region: 'IL',
  postal_code: '62701',
  country: 'US',
};

export function toyCheckout() {
  const money = (amount) => ({ amount, currency: 'USD' });
  return {
    id: TOY_CHECKOUT_ID,
    object: 'checkout',
    status: 'ready_to_confirm',
    offer_id: 'off_01JBENCHTOY0000000000000',
    product_url: 'https://protocol-shop.sandbox.test/products/bench-mug',
    buyer: { email: 'ada@example.com', name: 'Ada Lovelace' },
    shipping_address: ADDRESS,
    line_items: [{ title: 'Bench mug', quantity: 1, unit_price: money(1800), total: money(1800) }],
    totals: { subtotal: money(1800), shipping: money(500), tax: money(166), total: money(2466) },
    created_at: '2026-11-28T00:00:00.000Z',
    updated_at: '2026-11-28T00:00:00.000Z',
    expires_at: '2026-11-29T00:00:00.000Z',
  };
}
