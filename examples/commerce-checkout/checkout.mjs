#!/usr/bin/env node
// A whole sandbox purchase through @svc/commerce-client, printing each step:
//   1. a user token (the sandbox shortcut stands in for the hosted approval page)
//   2. an offer: live price and availability for a product link
//   3. a checkout; this product's store asks the user for a one-time code
//   4. the user's code, sent with userInput
//   5. waitFor: poll until the app must act again
//   6. confirm, with an idempotency key so a retry can never buy twice
//   7. the order, read back
//
// SERVICE_API_URL  the commerce service (default http://localhost:4000; with or without `/v1`)
// SERVICE_API_KEY  a sandbox key, svc_test_... (`svc-server keys create --service commerce --env sandbox`)
import { randomUUID } from 'node:crypto';
import { CommerceApiError, CommerceClient, ConnectionError } from '@svc/commerce-client';

// The client takes the service root with or without `/v1`, so the URL is passed as it is.
const baseUrl = process.env.SERVICE_API_URL || 'http://localhost:4000';

if (!process.env.SERVICE_API_KEY?.startsWith('svc_test_')) {
  console.error(
    'Set SERVICE_API_KEY to a sandbox key (svc_test_...). Create one with:\n' +
      '  node packages/server/dist/cli.js keys create --service commerce --env sandbox --name "Checkout example"',
  );
  process.exit(1);
}

// The key comes from SERVICE_API_KEY.
const client = new CommerceClient({ baseUrl });

const money = ({ amount, currency }) => `${(amount / 100).toFixed(2)} ${currency}`;
const step = (n, text) => console.log(`${n}. ${text}`);

async function main() {
  // 1. In production the user approves on `hosted_url` from approvalTokens.create() and comes
  //    back with a public_token; in the sandbox, one call stands in for that page.
  const { public_token } = await client.sandbox.publicToken({ client_user_id: 'example-user' });
  const { user_token, user_id } = await client.approvalTokens.exchange({ public_token });
  // Keep user tokens server-side, next to your own user record. This view of the client sends
  // it on every user-scoped call.
  const user = client.forUser(user_token);
  step(1, `User token for ${user_id} (sandbox shortcut for the hosted approval page)`);

  // 2. `requires-action` in the path makes the sandbox store ask for a one-time code.
  const offer = await client.offers.create({
    url: 'https://protocol-shop.sandbox.test/products/requires-action-kettle',
  });
  step(2, `Offer ${offer.id}: "${offer.title}" at ${money(offer.price)}, ${offer.availability}`);

  // 3. Buyer and address let the store price shipping and tax in the same call.
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
  step(3, `Checkout ${checkout.id} is ${checkout.status}: ${checkout.next_action?.description ?? ''}`);

  // 4. next_action.fields says what to ask the user for; the sandbox code is 424242.
  if (checkout.next_action?.type === 'one_time_code') {
    const fields = Object.fromEntries((checkout.next_action.fields ?? []).map((f) => [f.name, '424242']));
    checkout = await user.checkouts.userInput(checkout.id, { fields });
    step(4, `Sent ${Object.keys(fields).join(', ')}; checkout is ${checkout.status}`);
  }

  // 5. Stores can take a moment; waitFor polls (with back-off) until the app must act again.
  checkout = await user.checkouts.waitFor(checkout.id, {
    timeoutMs: 30_000,
    onUpdate: (c) => console.log(`   status: ${c.status}`),
  });
  if (checkout.status !== 'ready_to_confirm') throw new Error(`Checkout ended ${checkout.status}`);
  step(5, `Ready to confirm: total ${money(checkout.totals.total)}`);

  // 6. Make the key once per purchase and store it before calling: after a crash or a lost
  //    response, confirming again with the same key replays the first answer instead of
  //    placing a second order.
  const idempotencyKey = `confirm-${checkout.id}-${randomUUID()}`;
  const confirmed = await user.checkouts.confirm(checkout.id, { idempotencyKey }).withResponse();
  const replay = await user.checkouts.confirm(checkout.id, { idempotencyKey }).withResponse();
  step(
    6,
    `Confirmed: ${confirmed.data.status}, order ${confirmed.data.order_id} (request ${confirmed.requestId}); ` +
      `the same key again was replayed: ${replay.idempotentReplayed}`,
  );

  // 7. The order is always current, so read it back rather than trusting an old copy.
  const order = await user.orders.retrieve(confirmed.data.order_id);
  step(
    7,
    `Order ${order.id} is ${order.status} (store ref ${order.merchant_order_ref}), total ${money(order.totals.total)}`,
  );
  console.log(`Done: checkout ${checkout.id}, order ${order.id}.`);
}

main().catch((error) => {
  if (error instanceof ConnectionError) {
    console.error(`Cannot reach the commerce service at ${baseUrl}: is it running? (npm start)`);
  } else if (error instanceof CommerceApiError) {
    // requestId is what to quote when asking for help; it is in the server's logs too.
    console.error(`${error.message} (request ${error.requestId ?? 'n/a'})`);
  } else {
    console.error(error);
  }
  process.exit(1);
});
