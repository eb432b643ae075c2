import { z } from 'zod';
import { named } from '../schemas.js';

export const ROUTES = ['device_session', 'ucp', 'browser'] as const;
export const TIERS = ['major', 'protocol', 'long_tail'] as const;
export const MERCHANT_STATUSES = ['healthy', 'degraded', 'down'] as const;
export const AVAILABILITIES = ['in_stock', 'out_of_stock', 'preorder', 'unknown'] as const;
export const CHECKOUT_STATUSES = [
  'building',
  'requires_user_action',
  'ready_to_confirm',
  'confirming',
  'completed',
  'failed',
  'canceled',
] as const;
export const ORDER_STATUSES = ['placed', 'shipped', 'delivered', 'canceled', 'returned'] as const;
export const CONNECTION_STATUSES = ['active', 'needs_user', 'revoked'] as const;
export const NEXT_ACTION_TYPES = [
  'device_session',
  'browser',
  'connect_store',
  'one_time_code',
  'user_confirmation',
  'card_payment',
] as const;

export type StoreRoute = (typeof ROUTES)[number];
export type Tier = (typeof TIERS)[number];
export type MerchantStatus = (typeof MERCHANT_STATUSES)[number];
export type Availability = (typeof AVAILABILITIES)[number];
export type CheckoutStatus = (typeof CHECKOUT_STATUSES)[number];
export type OrderStatus = (typeof ORDER_STATUSES)[number];
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];
export type NextActionType = (typeof NEXT_ACTION_TYPES)[number];

const isoTime = z.string().describe('ISO 8601 timestamp');

export const Money = named(
  'Money',
  z.object({
    amount: z.int().describe('Minor units (cents).'),
    currency: z.string().length(3).describe('ISO 4217 code, upper case.'),
  }),
  'An amount of money in minor units.',
);
export type Money = z.infer<typeof Money>;

export const LineItem = named(
  'LineItem',
  z.object({
    item_ref: z.string(),
    title: z.string(),
    quantity: z.int(),
    unit_price: Money,
  }),
);
export type LineItem = z.infer<typeof LineItem>;

export const Totals = named(
  'Totals',
  z.object({
    subtotal: Money,
    shipping: Money.nullable().describe('null until the store knows the shipping address.'),
    tax: Money.nullable().describe('null until the store knows the shipping address.'),
    total: Money,
  }),
  'Totals as reported by the store.',
);
export type Totals = z.infer<typeof Totals>;

export const ShippingAddress = named(
  'ShippingAddress',
  z.strictObject({
    name: z.string().trim().min(1).max(200),
    line1: z.string().trim().min(1).max(200),
    line2: z.string().trim().max(200).optional(),
    city: z.string().trim().min(1).max(100),
    region: z.string().trim().max(100).optional(),
    postal_code: z.string().trim().min(1).max(20),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be a 2-letter country code')
      // An overwrite, not a transform, so the OpenAPI document still says "string".
      .toUpperCase(),
  }),
);
export type ShippingAddress = z.output<typeof ShippingAddress>;

export const Buyer = named(
  'Buyer',
  z.strictObject({
    email: z.email().max(254).optional(),
    phone: z
      .string()
      .regex(/^\+?[0-9 ().-]{5,32}$/, 'must be a phone number')
      .optional(),
  }),
);
export type Buyer = z.output<typeof Buyer>;

export const ApiErrorObject = named(
  'ApiErrorObject',
  z.object({
    code: z.string(),
    message: z.string(),
    param: z.string().optional(),
    request_id: z.string().optional(),
  }),
  'Same shape as the `error` of an API error response.',
);
export type ApiErrorObject = z.infer<typeof ApiErrorObject>;

export const idParam = z.strictObject({ id: z.string().min(1).max(200) });
export { isoTime };
