import { z } from 'zod';
import { named } from '../schemas.js';
import {
  ApiErrorObject,
  AVAILABILITIES,
  Buyer,
  CHECKOUT_STATUSES,
  CONNECTION_STATUSES,
  isoTime,
  LineItem,
  MERCHANT_STATUSES,
  Money,
  NEXT_ACTION_TYPES,
  ORDER_STATUSES,
  ROUTES,
  ShippingAddress,
  TIERS,
  Totals,
} from './common.js';

export const Merchant = named(
  'Merchant',
  z.object({
    id: z.string().describe('A registry name or a protocol-store id.'),
    name: z.string(),
    domain: z.string(),
    tier: z.enum(TIERS),
    route: z.enum(ROUTES),
    category: z.string().nullable(),
    requires_connection: z.boolean(),
    capabilities: z.object({ offers: z.boolean(), checkout: z.boolean(), orders: z.boolean() }),
    status: z.enum(MERCHANT_STATUSES),
    sandbox: z.literal(true).optional().describe('Present and true for sandbox stores.'),
  }),
);
export type Merchant = z.infer<typeof Merchant>;

export const Variant = named(
  'Variant',
  z.object({
    item_ref: z.string(),
    title: z.string(),
    price: Money,
    availability: z.enum(AVAILABILITIES),
  }),
);
export type Variant = z.infer<typeof Variant>;

export const Offer = named(
  'Offer',
  z.object({
    id: z.string(),
    merchant_id: z.string(),
    url: z.string(),
    title: z.string(),
    price: Money,
    availability: z.enum(AVAILABILITIES),
    item_ref: z.string(),
    image_url: z.string().nullable(),
    variants: z.array(Variant),
    fetched_at: isoTime,
    expires_at: isoTime,
  }),
);
export type Offer = z.infer<typeof Offer>;

export const NextActionField = named(
  'NextActionField',
  z.object({
    name: z.string(),
    label: z.string(),
    type: z.enum(['text', 'one_time_code']),
  }),
);

export const NextAction = named(
  'NextAction',
  z.object({
    type: z.enum(NEXT_ACTION_TYPES),
    description: z.string(),
    url: z
      .string()
      .optional()
      .describe('type browser, user_confirmation or card_payment: the page the user opens.'),
    fields: z
      .array(NextActionField)
      .optional()
      .describe('type one_time_code: the values to send with user_input.'),
    task_id: z.string().optional().describe("type device_session: the task the user's device completes."),
    connection_id: z.string().optional().describe('type connect_store: the connection the user must finish.'),
  }),
);
export type NextAction = z.infer<typeof NextAction>;

export const Checkout = named(
  'Checkout',
  z.object({
    id: z.string(),
    user_id: z.string(),
    merchant_id: z.string(),
    offer_id: z.string().nullable(),
    product_url: z.string(),
    route: z.enum(ROUTES),
    status: z.enum(CHECKOUT_STATUSES),
    line_items: z.array(LineItem),
    totals: Totals,
    buyer: Buyer.nullable(),
    shipping_address: ShippingAddress.nullable(),
    next_action: NextAction.nullable(),
    requires_user_confirmation: z.boolean(),
    user_confirmed_at: isoTime.nullable(),
    order_id: z.string().nullable(),
    error: ApiErrorObject.nullable(),
    merchant_messages: z.array(z.string()),
    created_at: isoTime,
    updated_at: isoTime,
  }),
);
export type Checkout = z.infer<typeof Checkout>;

export const Order = named(
  'Order',
  z.object({
    id: z.string(),
    checkout_id: z.string(),
    user_id: z.string(),
    merchant_id: z.string(),
    status: z.enum(ORDER_STATUSES),
    line_items: z.array(LineItem),
    totals: Totals,
    shipping_address: ShippingAddress,
    merchant_order_ref: z.string().describe("The store's own order number."),
    created_at: isoTime,
    updated_at: isoTime,
  }),
);
export type Order = z.infer<typeof Order>;

export const Connection = named(
  'Connection',
  z.object({
    id: z.string(),
    user_id: z.string(),
    merchant_id: z.string(),
    status: z.enum(CONNECTION_STATUSES),
    created_at: isoTime,
  }),
);
export type Connection = z.infer<typeof Connection>;

const amount = z.int().min(0).max(100_000_000);

export const ApprovalRules = named(
  'ApprovalRules',
  z.strictObject({
    max_per_order: amount.optional().describe('Largest order total, minor units.'),
    max_per_day: amount.optional().describe('Largest sum of order totals in any rolling 24 hours.'),
    confirm_above: amount.optional().describe('Totals above this need the user to confirm on a hosted page.'),
    currency: z
      .string()
      .regex(/^[A-Za-z]{3}$/, 'must be a 3-letter currency code')
      .transform((c) => c.toUpperCase())
      .optional()
      .describe('Currency of the amounts; USD when left out.'),
    allowed_merchants: z.array(z.string().min(1).max(200)).max(50).optional(),
  }),
);
export type ApprovalRules = z.output<typeof ApprovalRules>;

export const WebhookEndpoint = named(
  'WebhookEndpoint',
  z.object({
    id: z.string(),
    url: z.string(),
    secret: z.string().describe('whsec_ prefix; returned at creation. Keep it on the receiver.'),
  }),
);
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;
