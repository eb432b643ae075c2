// The webhook route, as you would write it in your own app. main.mjs wires it to a server.
import { getSignatureHeader, verifyEvent, WebhookSignatureError } from '@svc/webhooks';
import express from 'express';

/**
 * @param {object} options
 * @param {() => string | undefined} options.secret  the endpoint's `whsec_` secret (read per request, so
 *   it can be set after the app starts listening)
 * @param {(userId: string) => import('@svc/commerce-client').CommerceClient | undefined} options.clientFor
 *   the client for one of your users (`client.forUser(theirToken)`), to read objects back
 * @param {(line: string) => void} [options.log]
 * @param {(event: import('@svc/webhooks').WebhookEvent, current: unknown) => void} [options.onHandled]
 */
export function createReceiver({ secret, clientFor, log = console.log, onHandled = () => {} }) {
  // Event ids already handled. In production keep them in your database (a unique key on the
  // event id, written in the same transaction as the event's effect): a Set is lost on restart
  // and not shared between instances. Retries span about a day and a half; keep ids longer.
  const handled = new Set();
  const inFlight = new Set();
  // Checkouts already fulfilled: the effect itself must be idempotent too, because
  // checkout.completed and a checkout.updated for the same change both say "completed".
  const fulfilled = new Set();

  async function onCheckout(event) {
    const user = clientFor(event.data.user_id);
    // Events may arrive out of order, and `data` is the checkout as it was at that change.
    // Before acting on a status, read the checkout back: GET /v1/checkouts/{id} is always current.
    const checkout = user ? await user.checkouts.retrieve(event.data.id) : event.data;
    const said = checkout.status === event.data.status ? '' : ` (the event says ${event.data.status})`;
    log(`${event.id} ${event.type}: checkout ${checkout.id} is ${checkout.status}${said}`);
    if (checkout.status === 'completed' && !fulfilled.has(checkout.id)) {
      fulfilled.add(checkout.id);
      log(`fulfil: checkout ${checkout.id} placed order ${checkout.order_id}`);
    }
    return checkout;
  }

  async function onOrder(event) {
    const user = clientFor(event.data.user_id);
    const order = user ? await user.orders.retrieve(event.data.id) : event.data;
    log(`${event.id} ${event.type}: order ${order.id} is ${order.status}`);
    return order;
  }

  async function handle(event) {
    switch (event.type) {
      case 'checkout.updated':
      case 'checkout.requires_user_action':
      case 'checkout.completed':
      case 'checkout.failed':
        return onCheckout(event);
      case 'order.updated':
        return onOrder(event);
      case 'connection.needs_user':
      case 'connection.revoked':
        log(`${event.id} ${event.type}: ${event.data.merchant_id} is ${event.data.status}`);
        return event.data;
      default:
        // Acknowledge every type, including ones added to the API later, or they are retried.
        log(`${event.id} ${event.type}: acknowledged`);
        return event.data;
    }
  }

  const app = express();

  // express.raw, on this route and before any express.json(): the signature is over the body's
  // exact bytes, so it must not be parsed and re-serialised first.
  app.post('/webhooks/svc', express.raw({ type: 'application/json' }), async (req, res) => {
    let event;
    try {
      event = verifyEvent(req.body, getSignatureHeader(req.headers), secret() ?? '');
    } catch (error) {
      if (!(error instanceof WebhookSignatureError)) throw error;
      log(`rejected a delivery: ${error.code}`);
      return res.status(400).json({ error: error.code });
    }

    // Answer duplicates with a 2xx, or the service keeps retrying them.
    if (handled.has(event.id) || inFlight.has(event.id)) {
      log(`${event.id} ${event.type}: duplicate, ignored`);
      return res.sendStatus(200);
    }
    inFlight.add(event.id);
    try {
      const current = await handle(event);
      handled.add(event.id);
      onHandled(event, current);
      // Answer within 10 seconds; move slow work to a queue.
      return res.sendStatus(204);
    } catch (error) {
      // Not marked handled: a non-2xx makes the service retry, and the retry runs it again.
      log(`${event.id} ${event.type}: failed, will be retried: ${error.message}`);
      return res.sendStatus(500);
    } finally {
      inFlight.delete(event.id);
    }
  });

  app.use(express.json()); // the rest of your app
  app.get('/health', (_req, res) => res.json({ ok: true }));
  return app;
}
