import type { ApiErrorObject, Buyer, LineItem, ShippingAddress, Totals } from '../schemas/common.js';
import type { Merchant, NextAction, Variant } from '../schemas/resources.js';
import type { ProductPageOffer } from './product-page/types.js';

export interface Product {
  title: string;
  image_url: string | null;
  /** The first variant is the one a product link selects. */
  variants: Variant[];
}

/** The product a product page's offer shows, the variant its link selects first. */
export function productOfPageOffer(offer: ProductPageOffer): Product {
  const selected: Variant = offer.variants.find((v) => v.item_ref === offer.item_ref) ?? {
    item_ref: offer.item_ref,
    title: offer.title,
    price: offer.price,
    availability: offer.availability,
  };
  return {
    title: offer.title,
    image_url: offer.image_url,
    variants: [selected, ...offer.variants.filter((v) => v.item_ref !== offer.item_ref)],
  };
}

/**
 * Where a stateful store (a UCP checkout session) stands for one of our checkouts, kept on the
 * checkout between requests. `state` is the store's status mapped onto what the checkout service
 * needs: `incomplete` (the store still needs something the API can send), `action` (the buyer must
 * act at the store: `action` says where), `ready` (the store takes the order), `confirming` (the
 * store is placing it), `completed`, `canceled`. `data` is the adapter's own (ids, links, the
 * payment instrument the store offered); the service stores it and never reads it.
 */
export interface StoreSession {
  state: 'incomplete' | 'action' | 'ready' | 'confirming' | 'completed' | 'canceled' | 'stalled';
  action: NextAction | null;
  data: Record<string, unknown>;
  /**
   * `card` (with `ready`): the store takes a card through its tokenization handler. The buyer types
   * it on the hosted pay page, whose script sends it to the tokenizer; the page's form brings back
   * only the token, which goes to `placeOrder` in memory and is never stored.
   */
  payment?: 'card';
  /**
   * `stalled`: the store will not move on although the app has sent everything it can, and gives
   * the buyer no page to finish on. The checkout fails with this error rather than wait forever.
   */
  problem?: ApiErrorObject;
}

export interface Quote {
  line_items: LineItem[];
  totals: Totals;
  messages: string[];
  /** Stateful stores: the session after this quote, saved with the checkout. */
  session?: StoreSession;
}

export type PlaceResult =
  | { ok: true; merchant_order_ref: string; messages: string[] }
  | { ok: false; error: ApiErrorObject; messages: string[] }
  /**
   * The store has not placed the order yet: the buyer must act at the store first (`action`, e.g.
   * pay on the store's own page), or it is still placing it (`action` null). The checkout waits.
   */
  | { ok: 'waiting'; action: NextAction | null; session: StoreSession; messages: string[] };

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
  /** Our checkout: stateful stores derive their idempotency keys from it. */
  checkout_id: string;
  /** The store's session for this checkout so far (null before the first quote, and for stateless stores). */
  session: StoreSession | null;
  buyer: Buyer | null;
  url: string;
  item_ref: string;
  quantity: number;
  address: ShippingAddress | null;
  /** How many times this checkout was priced before; stores may move prices between quotes. */
  reprice_count: number;
  /** The currency the offer was priced in, where known (stores speaking UCP 2026-01-11 ask for it). */
  currency?: string | null;
  /**
   * `placeOrder` for a session with `payment: 'card'`: the tokenizer's token from the buyer's
   * browser, held only in memory for this one call. Without it (a retry, recovery) the store is
   * asked where the checkout stands instead, since the token cannot be sent again.
   */
  payment_token?: string;
  /**
   * With `payment_token`: the card's brand and last four digits as the buyer's browser read them
   * (display data; a UCP 2026-01-11 card instrument requires them). In memory only, like the token.
   */
  payment_card?: { brand: string; last_digits: string };
}

/** Our checkout as a store adapter needs it to ask the store about it. */
export interface StoreCheckoutRef {
  merchant: Merchant;
  url: string;
  checkout_id: string;
  session: StoreSession | null;
}

/**
 * One merchant route (device session, UCP, browser), as the checkout service sees it. The
 * sandbox implements every route deterministically; live adapters (commerce/merchants/ucp/) keep a
 * session at the store, returned with each quote and handed back on the next call.
 */
export interface StoreAdapter {
  /** The store keeps a session per checkout (UCP): `session`, `cancel` and `refresh` apply. */
  readonly stateful?: boolean;
  product(merchant: Merchant, url: string): Promise<Product>;
  /**
   * Stateful stores with nothing to read at a link (a headless UCP store): the store's own price
   * for its item `itemRef`, asked in a checkout session opened for it (`ref` keys it) and canceled
   * at once. Never called inside a transaction.
   */
  priceItem?(merchant: Merchant, url: string, itemRef: string, ref: string): Promise<Product>;
  quote(input: QuoteInput): Promise<Quote>;
  /** Fields the store asks the user for before it will take the order (e.g. a one-time code), if any. */
  challenge(merchant: Merchant, url: string): NextAction['fields'] | null;
  /** Checks the user's answer to `challenge`; a message for the user when it is wrong. */
  verify(fields: Record<string, string>): { ok: true } | { ok: false; message: string };
  /**
   * Places the order. Keyed by our checkout id: asked twice for one checkout, a store places one
   * order and answers the second time with the same reference. Never called inside a transaction.
   */
  placeOrder(input: QuoteInput): Promise<PlaceResult>;
  /**
   * The outcome of `placeOrder` for our checkout, looked up at the store. Never called inside a
   * transaction. `unknown` also means "not decided yet" (the buyer is still paying at the store).
   */
  orderStatus(ref: StoreCheckoutRef): Promise<OrderStatus>;
  /** Stateful stores: cancels the store's session. Never called inside a transaction. */
  cancel?(ref: StoreCheckoutRef): Promise<void>;
  /**
   * Stateful stores: the session as the store has it now (the buyer may have acted at the store),
   * with the store's messages. Never called inside a transaction.
   */
  refresh?(
    ref: StoreCheckoutRef,
  ): Promise<{ session: StoreSession; quote: Quote | null; order_ref: string | null }>;
  /**
   * Routes where the user finishes the purchase in their own browser (live long-tail stores): the
   * link they open (a prefilled cart, or the product page) and what to tell them. A non-null answer
   * makes the checkout `requires_user_action` with a `browser` next_action; this API places no
   * order for it. Never called inside a transaction.
   */
  handoff?(input: QuoteInput): Promise<{ url: string; message: string } | null>;
}
