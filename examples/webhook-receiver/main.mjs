#!/usr/bin/env node
// Runs the receiver from receiver.mjs, registers its endpoint with the commerce service, and
// prints each event it handles. With --demo it also makes a sandbox purchase so events arrive,
// and exits once the checkout's completion and the order have both been handled.
//
// SERVICE_API_URL      the commerce service (default http://localhost:4000; with or without `/v1`)
// SERVICE_API_KEY      a sandbox key, svc_test_...
// PORT                 where the receiver listens (default 4242; 0 picks a free port)
// RECEIVER_PUBLIC_URL  how the service reaches this app (default http://127.0.0.1:PORT)
// SVC_WEBHOOK_SECRET   reuse an endpoint registered earlier instead of registering a new one
import { CommerceApiError, CommerceClient, ConnectionError } from '@svc/commerce-client';
import { createReceiver } from './receiver.mjs';

// The client takes the service root with or without `/v1`, so the URL is passed as it is.
const baseUrl = process.env.SERVICE_API_URL || 'http://localhost:4000';
const demo = process.argv.includes('--demo');
const host = '127.0.0.1';

const client = new CommerceClient({ baseUrl }); // the key comes from SERVICE_API_KEY
// Your app keeps each user's token next to its user record; here, a Map of user id to client.
const users = new Map();
let secret = process.env.SVC_WEBHOOK_SECRET;

const seen = new Set();
let demoDone;
const demoFinished = new Promise((resolve) => {
  demoDone = resolve;
});

const app = createReceiver({
  secret: () => secret,
  clientFor: (userId) => users.get(userId),
  onHandled: (event) => {
    seen.add(event.type);
    if (seen.has('checkout.completed') && seen.has('order.updated')) demoDone();
  },
});

const server = await new Promise((resolve, reject) => {
  const s = app.listen(Number(process.env.PORT ?? 4242), host, () => resolve(s));
  s.once('error', reject);
});
const port = server.address().port;
const url = `${(process.env.RECEIVER_PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, '')}/webhooks/svc`;
console.log(`Receiver listening on http://${host}:${port}/webhooks/svc`);

function stop(code) {
  server.close();
  server.closeAllConnections();
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(0));

/** Buys one product in the sandbox, so the service has events to send. */
async function purchase() {
  const { public_token } = await client.sandbox.publicToken({ client_user_id: 'webhook-demo' });
  const { user_token, user_id } = await client.approvalTokens.exchange({ public_token });
  const user = client.forUser(user_token);
  users.set(user_id, user);
  const offer = await client.offers.create({ url: 'https://protocol-shop.sandbox.test/products/enamel-mug' });
  const checkout = await user.checkouts.create({
    offer_id: offer.id,
    buyer: { email: 'ada@example.com' },
    shipping_address: {
      name: 'Ada Lovelace',
      line1: '1 Main St',
      city: 'Springfield',
      postal_code: '62701',
      country: 'US',
    },
  });
  await user.checkouts.waitFor(checkout.id, { until: ['ready_to_confirm'], timeoutMs: 30_000 });
  await user.checkouts.confirm(checkout.id, { idempotencyKey: `confirm-${checkout.id}` });
  console.log(`Demo: confirmed checkout ${checkout.id}; waiting for its events`);
}

try {
  if (secret) {
    console.log('Using the endpoint registered earlier (SVC_WEBHOOK_SECRET is set)');
  } else {
    // Local URLs are refused unless the service runs with SERVICE_WEBHOOK_ALLOW_PRIVATE=1.
    const endpoint = await client.webhookEndpoints.create({ url });
    secret = endpoint.secret;
    console.log(`Registered ${endpoint.id} for ${endpoint.url}`);
    console.log(
      `  reuse it next time with SVC_WEBHOOK_SECRET=${endpoint.secret} (sandbox secret; keep live ones out of logs)`,
    );
  }
  if (demo) {
    await purchase();
    const timeout = setTimeout(() => {
      console.error('Demo: no checkout.completed and order.updated within 30 s; is the dispatcher running?');
      stop(1);
    }, 30_000);
    await demoFinished;
    clearTimeout(timeout);
    console.log('Demo: done');
    stop(0);
  }
} catch (error) {
  if (error instanceof ConnectionError) {
    console.error(`Cannot reach the commerce service at ${baseUrl}: is it running? (npm start)`);
  } else if (error instanceof CommerceApiError && error.code === 'URL_NOT_ALLOWED') {
    console.error(
      `${error.message}\nStart the service with SERVICE_WEBHOOK_ALLOW_PRIVATE=1 to deliver to ${url}, or set RECEIVER_PUBLIC_URL to a public https URL (a tunnel) that reaches this app.`,
    );
  } else if (error instanceof CommerceApiError) {
    console.error(`${error.message} (request ${error.requestId ?? 'n/a'})`);
  } else {
    console.error(error);
  }
  stop(1);
}
