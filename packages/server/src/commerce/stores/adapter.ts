import type { ApiErrorObject, LineItem, ShippingAddress, Totals } from '../schemas/common.js';
import type { Merchant, NextAction, Variant } from '../schemas/resources.js';

export interface Product {
  title: string;
  image_url: string | null;
  /** The first variant is the one a product link selects. */
  variants: Variant[];
}

export interface Quote {
  line_items: LineItem[];
  totals: Totals;
  messages: string[];
}

export type PlaceResult =
  | { ok: true; merchant_order_ref: string; messages: string[] }
  | { ok: false; error: ApiErrorObject; messages: string[] };

/**
 * What the store knows about the order for one of our checkouts, asked after a crash or a lost
 * answer. `not_placed` is a promise: the store has no order for this checkout and will not place
 * one from an earlier request. `unknown` (the store could not be asked) leaves the checkout as it is.
 */
export type OrderStatus =
  | { state: 'placed'; merchant_order_ref: string }
  | { state: 'not_placed' }
  | { state: 'unknown'; reason: string };

export interface QuoteInput {
  merchant: Merchant;
  url: string;
  item_ref: string;
  quantity: number;
  address: ShippingAddress | null;
  /** How many times this checkout was priced before; stores may move prices between quotes. */
  reprice_count: number;
}

/**
 * One merchant route (device session, UCP, browser), as the checkout service sees it. The
 * sandbox implements every route deterministically; live adapters plug in here later.
 */
export interface StoreAdapter {
  product(merchant: Merchant, url: string): Promise<Product>;
  quote(input: QuoteInput): Promise<Quote>;
  /** Fields the store asks the user for before it will take the order (e.g. a one-time code), if any. */
  challenge(merchant: Merchant, url: string): NextAction['fields'] | null;
  /** Checks the user's answer to `challenge`; a message for the user when it is wrong. */
  verify(fields: Record<string, string>): { ok: true } | { ok: false; message: string };
  /**
   * Places the order. Keyed by our checkout id: asked twice for one checkout, a store places one
   * order and answers the second time with the same reference. Never called inside a transaction.
   */
  placeOrder(input: QuoteInput & { checkout_id: string }): Promise<PlaceResult>;
  /** The outcome of `placeOrder` for our checkout, looked up at the store. Never called inside a transaction. */
  orderStatus(checkoutId: string): Promise<OrderStatus>;
  /**
   * Routes where the user finishes the purchase in their own browser (live long-tail stores): the
   * link they open (a prefilled cart, or the product page) and what to tell them. A non-null answer
   * makes the checkout `requires_user_action` with a `browser` next_action; this API places no
   * order for it. Never called inside a transaction.
   */
  handoff?(input: QuoteInput): Promise<{ url: string; message: string } | null>;
}
