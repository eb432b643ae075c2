import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  type Checkout,
  type Connection,
  isKnownEventType,
  type Order,
  signPayload,
  verifyEvent,
  verifyEventAsync,
  WEBHOOK_EVENT_TYPES,
  type WebhookEvent,
  type WebhookEventOf,
  type WebhookEventType,
  WebhookSignatureError,
} from '../src/index';

const SECRET = 'whsec_events';
const T = 1_767_603_600;
const AT_T = { now: new Date(T * 1000) };

const money = (amount: number) => ({ amount, currency: 'USD' });

const checkout: Checkout = {
  id: 'chk_1',
  user_id: 'usr_1',
  merchant_id: 'sandbox-store',
  product_url: 'https://store.example/p/1',
  route: 'ucp',
  status: 'completed',
  line_items: [{ item_ref: 'sku-1', title: 'Crème brûlée torch', quantity: 1, unit_price: money(2500) }],
  totals: { subtotal: money(2500), shipping: money(500), tax: money(200), total: money(3200) },
  offer_id: null,
  buyer: { email: 'a@example.com' },
  shipping_address: null,
  next_action: null,
  requires_user_confirmation: false,
  user_confirmed_at: null,
  order_id: 'ord_1',
  error: null,
  merchant_messages: [],
  created_at: '2026-01-05T09:00:00.000Z',
  updated_at: '2026-01-05T09:01:00.000Z',
};

const order: Order = {
  id: 'ord_1',
  checkout_id: 'chk_1',
  user_id: 'usr_1',
  merchant_id: 'sandbox-store',
  status: 'placed',
  line_items: checkout.line_items,
  totals: checkout.totals,
  shipping_address: {
    name: 'A',
    line1: '1 Main St',
    city: 'Springfield',
    postal_code: '12345',
    country: 'US',
  },
  merchant_order_ref: 'SB-1001',
  created_at: '2026-01-05T09:01:00.000Z',
  updated_at: '2026-01-05T09:01:00.000Z',
};

const connection: Connection = {
  id: 'con_1',
  user_id: 'usr_1',
  merchant_id: 'sandbox-store',
  status: 'revoked',
  created_at: '2026-01-05T09:00:00.000Z',
};

const dataFor = (type: WebhookEventType): WebhookEvent['data'] =>
  type.startsWith('checkout.')
    ? checkout
    : type === 'order.updated'
      ? order
      : type.startsWith('connection.')
        ? connection
        : { id: 'test_1', message: 'Hello from the dashboard' };

const envelope = (type: string, data: unknown = dataFor(type as WebhookEventType)) => ({
  id: 'evt_1',
  type,
  created_at: '2026-01-05T09:01:00.000Z',
  data,
});

const signed = (value: unknown) => {
  const body = typeof value === 'string' ? value : JSON.stringify(value);
  return { body, header: signPayload(body, SECRET, { timestamp: T }) };
};

const verifiers = [
  { name: 'verifyEvent', run: async (p: string | Uint8Array, h: string) => verifyEvent(p, h, SECRET, AT_T) },
  {
    name: 'verifyEventAsync',
    run: (p: string | Uint8Array, h: string) => verifyEventAsync(p, h, SECRET, AT_T),
  },
];

describe.each(verifiers)('$name', ({ run }) => {
  it.each(WEBHOOK_EVENT_TYPES)('returns a %s event as sent', async (type) => {
    const { body, header } = signed(envelope(type));
    expect(await run(body, header)).toEqual(JSON.parse(body));
    expect(await run(Buffer.from(body), header)).toEqual(JSON.parse(body));
  });

  it('verifies before parsing', async () => {
    const { body } = signed(envelope('checkout.completed'));
    await expect(run(body, `t=${T},v1=${'0'.repeat(64)}`)).rejects.toMatchObject({
      code: 'signature_mismatch',
    });
  });

  it.each<[string, string]>([
    ['not JSON', 'not json'],
    ['JSON null', 'null'],
    ['a JSON array', '[]'],
    ['an object without data', JSON.stringify({ id: 'evt_1', type: 'order.updated', created_at: 'x' })],
    ['data that is not an object', JSON.stringify(envelope('order.updated', 'x'))],
    ['a non-string id', JSON.stringify({ ...envelope('order.updated'), id: 1 })],
  ])('signed but %s: invalid_payload', async (_label, body) => {
    const { header } = signed(body);
    const error = await run(body, header).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookSignatureError);
    expect(error).toMatchObject({ code: 'invalid_payload' });
  });

  it('rejects signed bytes that are not UTF-8 as invalid_payload', async () => {
    const bytes = Uint8Array.from([0x7b, 0xff, 0x7d]);
    const header = signPayload(bytes, SECRET, { timestamp: T });
    await expect(run(bytes, header)).rejects.toMatchObject({ code: 'invalid_payload' });
  });

  it('passes an event type newer than this package through, so deliveries do not fail', async () => {
    const { body, header } = signed(envelope('order.refunded', { id: 'ord_1' }));
    const event = await run(body, header);
    expect(event.type).toBe('order.refunded');
    expect(isKnownEventType(event.type)).toBe(false);
  });
});

describe('event types', () => {
  it('lists every type in the spec', () => {
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual(
      [
        'checkout.updated',
        'checkout.requires_user_action',
        'checkout.completed',
        'checkout.failed',
        'order.updated',
        'connection.needs_user',
        'connection.revoked',
        'webhook.test',
      ].sort(),
    );
    expectTypeOf<(typeof WEBHOOK_EVENT_TYPES)[number]>().toEqualTypeOf<WebhookEventType>();
    expect(isKnownEventType('checkout.failed')).toBe(true);
  });

  it('narrows data by type', () => {
    const handle = (event: WebhookEvent) => {
      switch (event.type) {
        case 'checkout.updated':
        case 'checkout.requires_user_action':
        case 'checkout.completed':
        case 'checkout.failed':
          expectTypeOf(event.data).toEqualTypeOf<Checkout>();
          return event.data.status;
        case 'order.updated':
          expectTypeOf(event.data).toEqualTypeOf<Order>();
          return event.data.status;
        case 'connection.needs_user':
        case 'connection.revoked':
          expectTypeOf(event.data).toEqualTypeOf<Connection>();
          return event.data.status;
        case 'webhook.test':
          expectTypeOf(event.data.id).toEqualTypeOf<`test_${string}`>();
          return event.data.message;
        default:
          expectTypeOf(event).toBeNever();
          return undefined;
      }
    };
    expect(handle(envelope('order.updated') as WebhookEvent)).toBe('placed');
    expectTypeOf<WebhookEventOf<'connection.revoked'>['data']>().toEqualTypeOf<Connection>();
    expectTypeOf<WebhookEvent['id']>().toEqualTypeOf<`evt_${string}`>();
  });
});

describe('the ./web entry', () => {
  it('does not load node:crypto', async () => {
    vi.resetModules();
    vi.doMock('node:crypto', () => {
      throw new Error('the web entry must not import node:crypto');
    });
    try {
      const web = await import('../src/web');
      const header = await web.signPayloadAsync('{}', SECRET, { timestamp: T });
      await web.verifySignatureAsync('{}', header, SECRET, AT_T);
      expect(Object.keys(web)).not.toContain('verifySignature');
    } finally {
      vi.doUnmock('node:crypto');
    }
  });
});
