// Type tests, checked by tsc (vitest typecheck, and `tsc --noEmit -p packages/commerce-client`).
// Each `@ts-expect-error` line must fail to compile: if the types ever let it through, tsc
// reports the unused directive and the suite fails.
import { describe, expectTypeOf, it } from 'vitest';
import {
  type Checkout,
  type CheckoutStatus,
  CommerceClient,
  type Connection,
  type Merchant,
  type MerchantListPage,
  type Offer,
  type Order,
  type OrderStatus,
  type WebhookEvent,
} from '../src/index.js';

const client = new CommerceClient({ baseUrl: 'https://commerce.test/v1', apiKey: 'svc_test_x' });
const user = client.forUser('user-1');

describe('responses are the generated API types', () => {
  it('types every result', () => {
    expectTypeOf(client.merchants.retrieve('m')).resolves.toEqualTypeOf<Merchant>();
    expectTypeOf(client.offers.create({ url: 'u' })).resolves.toEqualTypeOf<Offer>();
    expectTypeOf(user.checkouts.confirm('chk_1')).resolves.toEqualTypeOf<Checkout>();
    expectTypeOf(user.checkouts.waitFor('chk_1')).resolves.toEqualTypeOf<Checkout>();
    expectTypeOf(user.orders.retrieve('ord_1')).resolves.toEqualTypeOf<Order>();
    // The deprecated aliases type exactly as `retrieve`.
    expectTypeOf(client.merchants.get('m')).resolves.toEqualTypeOf<Merchant>();
    expectTypeOf(client.offers.get('o')).resolves.toEqualTypeOf<Offer>();
    expectTypeOf(user.checkouts.get('chk_1')).resolves.toEqualTypeOf<Checkout>();
    expectTypeOf(user.orders.get('ord_1')).resolves.toEqualTypeOf<Order>();
    expectTypeOf(user.orders.list().withResponse()).resolves.toHaveProperty('requestId');
    expectTypeOf(client.merchants.list()).resolves.toEqualTypeOf<MerchantListPage>();
    expectTypeOf(user.sandbox.createConnection({ merchant_id: 'm' })).resolves.toEqualTypeOf<Connection>();
    expectTypeOf(client.approvalTokens.exchange({ public_token: 'p' })).resolves.toEqualTypeOf<{
      user_id: string;
      user_token: string;
    }>();
  });

  it('types statuses as string-literal unions', () => {
    expectTypeOf<CheckoutStatus>().toEqualTypeOf<
      | 'building'
      | 'requires_user_action'
      | 'ready_to_confirm'
      | 'confirming'
      | 'completed'
      | 'failed'
      | 'canceled'
    >();
    expectTypeOf<OrderStatus>().toEqualTypeOf<'placed' | 'shipped' | 'delivered' | 'canceled' | 'returned'>();
    expectTypeOf<Checkout['next_action']>().toEqualTypeOf<{
      connection_id?: string;
      description: string;
      fields?: { label: string; name: string; type: 'text' | 'one_time_code' }[];
      task_id?: string;
      type:
        | 'device_session'
        | 'browser'
        | 'connect_store'
        | 'one_time_code'
        | 'user_confirmation'
        | 'card_payment';
      url?: string;
    } | null>();
  });

  it('iterates lists as their items', async () => {
    for await (const m of client.merchants.list()) expectTypeOf(m).toEqualTypeOf<Merchant>();
    for await (const o of user.orders.list()) expectTypeOf(o).toEqualTypeOf<Order>();
    for await (const page of client.merchants.list().pages()) {
      expectTypeOf(page.merchants).toEqualTypeOf<Merchant[]>();
      expectTypeOf(page.next_after).toEqualTypeOf<string | null>();
    }
  });

  it('narrows webhook events to the same types the client returns', () => {
    const handle = (event: WebhookEvent) => {
      if (event.type === 'checkout.completed') expectTypeOf(event.data).toEqualTypeOf<Checkout>();
      if (event.type === 'order.updated') expectTypeOf(event.data).toEqualTypeOf<Order>();
    };
    expectTypeOf(handle).toBeFunction();
  });

  it('exposes raw responses', () => {
    expectTypeOf(user.checkouts.confirm('chk_1').withResponse()).resolves.toMatchTypeOf<{
      data: Checkout;
      response: Response;
      requestId: string | null;
      idempotentReplayed: boolean;
    }>();
  });
});

describe('mistakes do not compile', () => {
  it('rejects misspelled and unknown request fields', () => {
    // @ts-expect-error `offerId` is not a field; it is `offer_id`.
    void user.checkouts.create({ offerId: 'ofr_1' });
    void user.checkouts.update('chk_1', {
      // @ts-expect-error `postcode` is not a shipping address field; it is `postal_code`.
      shipping_address: { name: 'A', line1: 'x', city: 'c', postcode: '1', country: 'US' },
    });
    // @ts-expect-error `quantity` is a number.
    void user.checkouts.create({ offer_id: 'ofr_1', quantity: '2' });
    // @ts-expect-error `url` is required.
    void client.offers.create({});
    // @ts-expect-error `user_input` takes `{ fields }`, not the fields themselves.
    void user.checkouts.userInput('chk_1', { code: '424242' });
    // @ts-expect-error `query` is not a merchants list parameter; it is `q`.
    void client.merchants.list({ query: 'tea' });
    // @ts-expect-error `confirm` takes no body, only request options.
    void user.checkouts.confirm('chk_1', { offer_id: 'ofr_1' });
  });

  it('rejects unknown statuses', () => {
    // @ts-expect-error `complete` is not a checkout status; it is `completed`.
    void user.checkouts.waitFor('chk_1', { until: ['complete'] });
    // @ts-expect-error `cancelled` is spelled `canceled`.
    const status: CheckoutStatus = 'cancelled';
    // @ts-expect-error `sent` is not an order status.
    void user.sandbox.advanceOrder('ord_1', { status: 'sent' });
    // @ts-expect-error `connected` is not a connection status; it is `active`.
    void user.sandbox.createConnection({ merchant_id: 'm', status: 'connected' });
    expectTypeOf(status).toEqualTypeOf<CheckoutStatus>();
  });

  it('rejects misspelled response fields', async () => {
    const checkout = await user.checkouts.retrieve('chk_1');
    // @ts-expect-error `orderId` does not exist; it is `order_id`.
    void checkout.orderId;
    // @ts-expect-error comparing with a status that does not exist is an error too.
    if (checkout.status === 'done') return;
    const offer = await client.offers.retrieve('ofr_1');
    // @ts-expect-error `price` is Money, with `amount` in minor units, not `cents`.
    void offer.price.cents;
  });
});
