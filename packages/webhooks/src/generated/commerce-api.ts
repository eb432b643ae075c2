/**
 * TEMPORARY, hand-written from the commerce spec's field tables.
 *
 * This file will be regenerated from the server's OpenAPI document (`GET /v1/openapi.json`) by
 * `pnpm gen:types` and overwritten. Keep the named exports `Money`, `Checkout`, `Order` and
 * `Connection`: the events module imports them by name so the generated file can drop in.
 *
 * Optional fields are the ones the spec marks as conditional ("if any", "when ...", "set when ...").
 * Shapes the spec leaves unspecified are `unknown` rather than guessed.
 */

/** Amount in minor units (cents) plus a currency code. */
export interface Money {
  amount: number;
  currency: string;
}

export interface LineItem {
  item_ref: string;
  title: string;
  quantity: number;
  unit_price: Money;
}

/** Totals as reported by the store. */
export interface Totals {
  subtotal: Money;
  shipping: Money;
  tax: Money;
  total: Money;
}

/** Echoes what the application sent; `country` is a 2-letter code. */
export interface ShippingAddress {
  name: string;
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postal_code: string;
  country: string;
}

/** Same shape as the `error` object of an API error response. */
export interface ApiError {
  code: string;
  message: string;
  request_id?: string;
}

export type CheckoutRoute = 'device_session' | 'ucp' | 'browser';

export type CheckoutStatus =
  | 'building'
  | 'requires_user_action'
  | 'ready_to_confirm'
  | 'confirming'
  | 'completed'
  | 'failed'
  | 'canceled';

/** Present while a checkout is `requires_user_action`; which optional fields appear depends on `type`. */
export interface NextAction {
  type: string;
  description: string;
  url?: string;
  fields?: unknown;
  task_id?: string;
  connection_id?: string;
}

export interface Checkout {
  /** `chk_` prefix. */
  id: string;
  user_id: string;
  merchant_id: string;
  offer_id?: string;
  product_url: string;
  route: CheckoutRoute;
  status: CheckoutStatus;
  line_items: LineItem[];
  totals: Totals;
  shipping_address?: ShippingAddress;
  next_action?: NextAction;
  requires_user_confirmation?: boolean;
  user_confirmed_at?: string;
  /** Set when `status` is `completed`. */
  order_id?: string;
  /** Set when `status` is `failed`. */
  error?: ApiError;
  /** The store's own messages, for debugging. */
  merchant_messages?: unknown[];
  created_at: string;
  updated_at: string;
}

/** The spec does not list order statuses; these are the ones the server uses. */
export type OrderStatus = 'placed' | 'shipped' | 'delivered' | 'canceled' | 'returned';

/** The spec shows only ids and status; the remaining fields mirror the checkout the order came from. */
export interface Order {
  /** `ord_` prefix. */
  id: string;
  checkout_id: string;
  user_id: string;
  merchant_id: string;
  status: OrderStatus;
  line_items: LineItem[];
  totals: Totals;
  shipping_address: ShippingAddress;
  created_at: string;
  updated_at: string;
}

export type ConnectionStatus = 'active' | 'needs_user' | 'revoked';

export interface Connection {
  /** `con_` prefix. */
  id: string;
  user_id: string;
  merchant_id: string;
  status: ConnectionStatus;
  created_at: string;
}
