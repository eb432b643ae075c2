#!/usr/bin/env node
// A live-key purchase from a UCP store, end to end, printing each step:
//   1. a local UCP store starts (./store.mjs: the example brings its own store)
//   2. the user approves the app on the hosted approval page; the app exchanges the public token
//   3. an offer: the commerce service discovers the store from /.well-known/ucp and asks its catalog
//   4. a checkout: a checkout session at the store, with the store's own totals
//   5. confirm, with an idempotency key: the store completes its session
//   6. the order, read back
//   7. a headless store (no catalog, no product pages): an offer from its address and item id,
//      priced by the store, and a checkout from it
//   8. confirm, and the order
//   9. a store that takes cards through its tokenization handler: the checkout waits for the
//      buyer's card on the hosted pay page
//  10. what the buyer's browser does there: the card straight to the store's tokenizer, the token
//      back to the page; the order is placed
//
// SERVICE_API_URL  the commerce service (default http://localhost:4000), started with
//                  SERVICE_STORES_ALLOW_PRIVATE=1 so it may reach a store on this machine
// SERVICE_API_KEY  a live key, svc_live_... (`svc-server keys create --service commerce --env live`)
import { randomUUID } from 'node:crypto';
import { CommerceApiError, CommerceClient, ConnectionError } from '@svc/commerce-client';
import { startStore } from './store.mjs';

const baseUrl = process.env.SERVICE_API_URL || 'http://localhost:4000';

if (!process.env.SERVICE_API_KEY?.startsWith('svc_live_')) {
  console.error(
    'Set SERVICE_API_KEY to a live key (svc_live_...). Create one with:\n' +
      '  node packages/server/dist/cli.js keys create --service commerce --env live --name "Live UCP example"',
  );
  process.exit(1);
}

const client = new CommerceClient({ baseUrl });
const money = ({ amount, currency }) => `${(amount / 100).toFixed(2)} ${currency}`;
const step = (n, text) => console.log(`${n}. ${text}`);

/**
 * What the user does on the hosted approval page, done here with fetch so the example runs
 * unattended: open the page, press "Approve". In a real app the user's browser opens hosted_url
 * and comes back to redirect_uri with ?public_token=….
 */
async function approveAsTheUser(hostedUrl) {
  const page = await (await fetch(hostedUrl)).text();
  const fromHtml = (s) =>
    s
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'");
  const fields = [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
    m[1],
    fromHtml(m[2]),
  ]);
  const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
  const res = await fetch(new URL(action, hostedUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([...fields, ['decision', 'approve']]).toString(),
  });
  return new URL(res.headers.get('location')).searchParams.get('public_token');
}

/**
 * What the buyer's browser does on the hosted pay page, done here with fetch: the page's script
 * posts the card to the tokenizer the page names (never to the commerce service), then posts the
 * page's form with the token alone. Returns the page's title.
 */
async function payAsTheUser(payUrl) {
  const page = await (await fetch(payUrl)).text();
  const attr = (name) => {
    const found = new RegExp(`${name}="([^"]*)"`).exec(page);
    if (!found) throw new Error(`The pay page has no ${name}.`);
    return found[1].replace(/&quot;/g, '"').replace(/&amp;/g, '&');
  };
  const fields = [...page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)]
    .filter((m) => m[1] !== 'payment_token')
    .map((m) => [m[1], m[2]]);
  const card = {
    type: 'card',
    card_number_type: 'fpan',
    number: '4242424242424242',
    expiry_month: 12,
    expiry_year: 2030,
    cvc: '123',
  };
  const tokenized = await fetch(attr('data-tokenizer'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: new URL(payUrl).origin },
    body: JSON.stringify({ credential: card, binding: JSON.parse(attr('data-binding')) }),
  });
  const { token } = await tokenized.json();
  const res = await fetch(new URL('/hosted/pay', payUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([...fields, ['payment_token', token]]).toString(),
  });
  return /<h1>([^<]*)<\/h1>/.exec(await res.text())?.[1];
}

async function main() {
  const store = await startStore();
  try {
    step(1, `UCP store running at ${store.origin} (profile at ${store.origin}/.well-known/ucp)`);

    const approval = await client.approvalTokens.create({
      client_user_id: 'live-example-user',
      redirect_uri: 'https://app.example/callback',
      rules: { max_per_order: 20_000, max_per_day: 50_000, confirm_above: 10_000, currency: 'USD' },
    });
    const public_token = await approveAsTheUser(approval.hosted_url);
    const { user_token, user_id } = await client.approvalTokens.exchange({ public_token });
    const user = client.forUser(user_token);
    step(2, `User ${user_id} approved on the hosted page; user token exchanged`);

    const offer = await client.offers.create({ url: store.productUrl });
    step(
      3,
      `Offer ${offer.id}: "${offer.title}" at ${money(offer.price)}, ${offer.availability}, from ${offer.merchant_id}`,
    );

    let checkout = await user.checkouts.create({
      offer_id: offer.id,
      buyer: { email: 'ada@example.com' },
      shipping_address: {
        name: 'Ada Lovelace',
        line1: '1 Main St',
        city: 'Springfield',
        region: 'IL',
        postal_code: '62701',
        country: 'US',
      },
    });
    step(
      4,
      `Checkout ${checkout.id} is ${checkout.status}: subtotal ${money(checkout.totals.subtotal)}, ` +
        `shipping ${money(checkout.totals.shipping)}, tax ${money(checkout.totals.tax)}, total ${money(checkout.totals.total)}`,
    );
    if (checkout.status !== 'ready_to_confirm') {
      throw new Error(`Checkout is ${checkout.status}: ${checkout.next_action?.description ?? ''}`);
    }

    // One key per purchase, kept before calling: a retry after a lost answer reuses it, and the
    // service reuses its own key at the store, so the store places one order.
    checkout = await user.checkouts.confirm(checkout.id, { idempotencyKey: `confirm-${randomUUID()}` });
    step(5, `Confirmed: ${checkout.status}, order ${checkout.order_id}`);

    const order = await user.orders.retrieve(checkout.order_id);
    step(
      6,
      `Order ${order.id} is ${order.status} (store order ${order.merchant_order_ref}), total ${money(order.totals.total)}`,
    );

    // A store with no catalog and no product pages: name its item, and the store prices it.
    const headless = await startStore({ host: '127.0.0.2', headless: true });
    try {
      // The offer names the store's item id; the store prices it (product_url + item_ref on
      // POST /v1/checkouts does the same in one step).
      const named = await client.offers.create({ url: `${headless.origin}/`, item_ref: headless.itemRef });
      let bare = await user.checkouts.create({
        offer_id: named.id,
        buyer: { email: 'ada@example.com' },
        shipping_address: checkout.shipping_address,
      });
      step(
        7,
        `Headless store ${headless.origin}: offer ${named.id} for item ${named.item_ref} at ${money(named.price)}; checkout ${bare.id} for ${bare.line_items[0].title} is ${bare.status}, total ${money(bare.totals.total)}`,
      );
      if (bare.status !== 'ready_to_confirm') throw new Error(`Checkout is ${bare.status}`);
      bare = await user.checkouts.confirm(bare.id, { idempotencyKey: `confirm-${randomUUID()}` });
      const second = await user.orders.retrieve(bare.order_id);
      step(8, `Confirmed: ${bare.status}, order ${second.id} (store order ${second.merchant_order_ref})`);
    } finally {
      await headless.close();
    }

    // A store that takes cards through a tokenization handler: the buyer pays on the hosted page.
    const cardStore = await startStore({
      host: '127.0.0.3',
      cards: true,
      pageOrigin: new URL(baseUrl).origin,
    });
    try {
      const paying = await user.checkouts.create({
        product_url: cardStore.productUrl,
        item_ref: cardStore.itemRef,
        buyer: { email: 'ada@example.com' },
        shipping_address: checkout.shipping_address,
      });
      step(
        9,
        `Card store ${cardStore.origin}: checkout ${paying.id} is ${paying.status}, next: ${paying.next_action?.type}`,
      );
      if (paying.next_action?.type !== 'card_payment') throw new Error(`Checkout is ${paying.status}`);
      const page = await payAsTheUser(paying.next_action.url);
      const paid = await user.checkouts.retrieve(paying.id);
      const third = await user.orders.retrieve(paid.order_id);
      step(
        10,
        `The buyer paid on the hosted page (${page}): ${paid.status}, order ${third.id} (store order ${third.merchant_order_ref})`,
      );
    } finally {
      await cardStore.close();
    }
    console.log(`Done: the stores placed ${store.orders.length + 2} order(s).`);
  } finally {
    await store.close();
  }
}

main().catch((error) => {
  if (error instanceof ConnectionError) {
    console.error(`Cannot reach the commerce service at ${baseUrl}: is it running? (npm start)`);
  } else if (error instanceof CommerceApiError) {
    console.error(`${error.message} (request ${error.requestId ?? 'n/a'})`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
