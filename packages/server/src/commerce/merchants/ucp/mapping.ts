import { createHash } from 'node:crypto';
import { checkpoint, countWork, type Steps } from '../../../platform/sliced/work.js';
import type { Availability, Buyer, LineItem, ShippingAddress, Totals } from '../../schemas/common.js';
import type { Merchant, Variant } from '../../schemas/resources.js';
import type { StoreSession } from '../adapter.js';
import type { CardTokenizer } from './payment-handlers.js';

/* The UCP shapes this adapter reads (schemas/shopping/*.json of the shared 2026-04-08 schemas). */
export interface UcpMessage {
  type: 'error' | 'warning' | 'info';
  code?: string;
  content: string;
  severity?: string;
}
export interface UcpCheckout {
  id: string;
  status: string;
  currency: string;
  line_items: {
    id: string;
    item: { id: string; title: string; price: number; image_url?: string };
    quantity: number;
  }[];
  totals: { type: string; amount: number; display_text?: string }[];
  messages?: UcpMessage[];
  continue_url?: string;
  payment?: { instruments?: Record<string, unknown>[] };
  fulfillment?: {
    methods?: {
      id: string;
      type: string;
      line_item_ids: string[];
      groups?: { id: string; selected_option_id?: string | null; options?: { id: string }[] }[];
    }[];
  };
  order?: { id: string; permalink_url: string; label?: string };
  /** UCP 2026-01-11 stores may name the order at the top level instead of in `order`. */
  order_id?: string;
}
export interface UcpErrorResponse {
  ucp: { status: 'error' };
  messages: UcpMessage[];
  continue_url?: string;
}

export const isErrorResponse = (b: unknown): b is UcpErrorResponse =>
  typeof b === 'object' && b !== null && (b as { ucp?: { status?: string } }).ucp?.status === 'error';

/**
 * The Idempotency-Key of one mutation of one of our checkouts: derived from the checkout id, the
 * operation (with its body, for updates) and its sequence number (the checkout's reprice count for
 * updates), so a retry, even after a crash, sends the same key without anything kept beside the
 * checkout. UUID-shaped (the
 * OpenAPI says `format: uuid`), version 8 (custom).
 */
export function idempotencyKey(checkoutId: string, op: string, seq = 0): string {
  const h = createHash('sha256').update(`${checkoutId}:${op}:${seq}`).digest('hex');
  const variant = ((Number.parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const splitName = (name: string) => {
  const parts = name.trim().split(/\s+/);
  const last = parts.length > 1 ? (parts.pop() as string) : '';
  return { first_name: parts.join(' '), ...(last ? { last_name: last } : {}) };
};

/** Our buyer as UCP's (names from the shipping address; phone in E.164 digits). */
export function toUcpBuyer(buyer: Buyer | null, address: ShippingAddress | null) {
  if (!buyer?.email && !buyer?.phone) return undefined;
  return {
    ...(address ? splitName(address.name) : {}),
    ...(buyer.email ? { email: buyer.email } : {}),
    ...(buyer.phone ? { phone_number: `+${buyer.phone.replace(/\D/g, '')}` } : {}),
  };
}

export const DESTINATION_ID = 'dest_1';

export const toUcpDestination = (a: ShippingAddress) => ({
  id: DESTINATION_ID,
  ...splitName(a.name),
  street_address: a.line1,
  ...(a.line2 ? { extended_address: a.line2 } : {}),
  address_locality: a.city,
  ...(a.region ? { address_region: a.region } : {}),
  postal_code: a.postal_code,
  address_country: a.country,
});

/** The `incomplete` messages that mean the store needs the buyer themselves. */
const BUYER_SEVERITIES = new Set(['requires_buyer_input', 'requires_buyer_review']);

/** How much of one store message is kept, and how many messages of one answer. */
const MESSAGE_MAX_CHARS = 500;
export const MESSAGES_KEPT = 20;

export const messageText = (m: UcpMessage) => {
  const text = m.code ? `[${m.code}] ${m.content}` : m.content;
  return text.length > MESSAGE_MAX_CHARS ? `${text.slice(0, MESSAGE_MAX_CHARS - 1)}…` : text;
};

const isMinor = (n: unknown) => Number.isSafeInteger(n);

/** The store's id of the order a checkout placed, in either shape (`order.id`, or 2026-01-11's `order_id`). */
export function orderRefOf(c: { order?: { id?: unknown }; order_id?: unknown } | null): string | null {
  const id = c?.order?.id ?? c?.order_id;
  return typeof id === 'string' && id.length > 0
    ? id.slice(0, 200)
    : typeof id === 'number'
      ? String(id)
      : null;
}

/**
 * What is kept of a payment instrument the store offered: the reference that names it at
 * `complete` (`id`, `handler_id`, `type`). Never its `credential` (a token or card data), display
 * data or billing address: no credential is ever written to disk or logs.
 */
export function instrumentRef(i: unknown): { id: string; handler_id: string; type: string } | null {
  const x = i as Record<string, unknown> | null;
  if (typeof x?.id !== 'string' || typeof x.handler_id !== 'string' || typeof x.type !== 'string')
    return null;
  return { id: x.id, handler_id: x.handler_id, type: x.type };
}

/**
 * Whether a store's answer is a checkout this adapter can read: ids, integer minor-unit amounts,
 * an ISO 4217 currency, exactly one subtotal and one total. A store is trusted for its prices,
 * not for the shape of its JSON.
 */
export function isReadableCheckout(c: unknown): c is UcpCheckout {
  const x = c as UcpCheckout;
  return (
    typeof x?.id === 'string' &&
    x.id.length > 0 &&
    typeof x.status === 'string' &&
    typeof x.currency === 'string' &&
    /^[A-Z]{3}$/.test(x.currency) &&
    Array.isArray(x.line_items) &&
    x.line_items.length > 0 &&
    x.line_items.every(
      (li) =>
        typeof li?.id === 'string' &&
        typeof li.item?.id === 'string' &&
        typeof li.item.title === 'string' &&
        isMinor(li.item.price) &&
        isMinor(li.quantity),
    ) &&
    Array.isArray(x.totals) &&
    x.totals.every((t) => typeof t?.type === 'string' && isMinor(t.amount)) &&
    x.totals.filter((t) => t.type === 'subtotal').length === 1 &&
    x.totals.filter((t) => t.type === 'total').length === 1 &&
    (x.messages === undefined ||
      (Array.isArray(x.messages) && x.messages.every((m) => typeof m?.content === 'string')))
  );
}

function sum(c: UcpCheckout, type: string): number | null {
  const found = c.totals.filter((t) => t.type === type);
  return found.length === 0 ? null : found.reduce((s, t) => s + t.amount, 0);
}

/** The store's own totals, as ours: subtotal, fulfillment (shipping), tax and total. */
export function toTotals(c: UcpCheckout): Totals {
  const money = (amount: number | null) => (amount === null ? null : { amount, currency: c.currency });
  return {
    subtotal: { amount: sum(c, 'subtotal') ?? 0, currency: c.currency },
    shipping: money(sum(c, 'fulfillment')),
    tax: money(sum(c, 'tax')),
    total: { amount: sum(c, 'total') ?? 0, currency: c.currency },
  };
}

export const toLineItems = (c: UcpCheckout): LineItem[] =>
  c.line_items.map((li) => ({
    item_ref: li.item.id,
    title: li.item.title,
    quantity: li.quantity,
    unit_price: { amount: li.item.price, currency: c.currency },
  }));

/** A link the store hands the buyer: only http(s), and plain http only where private stores are allowed. */
export function safeLink(raw: string | undefined, allowHttp: boolean): string | null {
  if (!raw) return null;
  try {
    const url = new URL(raw);
    if (url.protocol === 'https:' || (allowHttp && url.protocol === 'http:')) return url.href;
  } catch {
    // not a URL
  }
  return null;
}

/**
 * The store's status mapped onto ours (docs/commerce/live.md has the table):
 * `incomplete` → building, or the buyer's action when a message asks for buyer input;
 * `requires_escalation` → the buyer's action at `continue_url`; `ready_for_complete` → ready (or
 * the buyer pays at the store when it offers no instrument this platform can hand back);
 * `complete_in_progress` → confirming; `completed`; `canceled`.
 */
export function toSession(
  c: UcpCheckout,
  merchant: Merchant,
  allowHttp: boolean,
  /** The app has sent everything it can (buyer and address): an `incomplete` store is stuck. */
  everythingSent = false,
  /** The store's tokenization handler this platform can pay through, if it declares one. */
  tokenizer: CardTokenizer | null = null,
): StoreSession {
  const continueUrl = safeLink(c.continue_url, allowHttp);
  const instruments = Array.isArray(c.payment?.instruments) ? c.payment.instruments : [];
  const offered = instruments.find((i) => i?.selected === true) ?? instruments[0] ?? null;
  const instrument = instrumentRef(offered);
  const data = {
    id: c.id,
    status: c.status,
    currency: c.currency,
    continue_url: continueUrl,
    instrument,
    order_ref: orderRefOf(c),
    line_item_ids: c.line_items.map((li) => li.id),
    methods: c.fulfillment?.methods ?? [],
  };
  const said = (c.messages ?? []).map(messageText).join(' ');
  const stalled = (why: string): StoreSession => ({
    state: 'stalled',
    action: null,
    data,
    problem: {
      code: 'MERCHANT_CHECKOUT_STALLED',
      message: `${merchant.name} ${why}, and gives no page (continue_url) for the buyer to finish on${said ? `. The store says: ${said}` : '; it gave no reason'}. Nothing was ordered; create a new checkout or try another store.`,
    },
  });
  const buyerMessage = (c.messages ?? []).find((m) => m.severity && BUYER_SEVERITIES.has(m.severity));
  const handOff = (why: string): StoreSession =>
    continueUrl
      ? {
          state: 'action',
          action: {
            type: 'browser',
            description: `${merchant.name} needs the buyer on its own checkout page: ${why} Open url in the user's browser; the checkout moves on when the store reports back.`,
            url: continueUrl,
          },
          data,
        }
      : { state: 'incomplete', action: null, data };
  switch (c.status) {
    case 'incomplete':
      if (buyerMessage) return continueUrl ? handOff(buyerMessage.content) : stalled('needs the buyer');
      if (!everythingSent) return { state: 'incomplete', action: null, data };
      return continueUrl
        ? handOff(said || 'it keeps the checkout incomplete after everything this API can send.')
        : stalled('keeps the checkout incomplete after everything this API can send');
    case 'requires_escalation':
      return continueUrl
        ? handOff(buyerMessage?.content ?? c.messages?.[0]?.content ?? 'the store asks for the buyer.')
        : stalled('asks for the buyer (requires_escalation)');
    case 'ready_for_complete':
      if (instrument) return { state: 'ready', action: null, data };
      // The buyer types their card on our hosted page, whose script sends it to the tokenizer.
      if (tokenizer)
        return { state: 'ready', action: null, data: { ...data, card: tokenizer }, payment: 'card' };
      return continueUrl
        ? handOff('it offers no payment method this platform can hand back, so the buyer pays there.')
        : stalled('offers no payment instrument this platform can use');
    case 'complete_in_progress':
      return { state: 'confirming', action: null, data };
    case 'completed':
      return { state: 'completed', action: null, data };
    default:
      return { state: 'canceled', action: null, data };
  }
}

/** UCP variant availability as ours. */
export function toAvailability(a: { available?: boolean; status?: string } | undefined): Availability {
  if (!a) return 'unknown';
  if (a.status === 'preorder') return 'preorder';
  if (a.status === 'out_of_stock' || a.status === 'discontinued' || a.available === false)
    return 'out_of_stock';
  if (a.available === true || a.status === 'in_stock' || a.status === 'backorder') return 'in_stock';
  return 'unknown';
}

export interface UcpVariant {
  id: string;
  sku?: string;
  title: string;
  price: { amount: number; currency: string };
  availability?: { available?: boolean; status?: string };
  media?: { type: string; url: string }[];
  url?: string;
}
export interface UcpProduct {
  id: string;
  title: string;
  url?: string;
  media?: { type: string; url: string }[];
  variants: UcpVariant[];
}

export const toVariant = (v: UcpVariant): Variant => ({
  item_ref: v.id,
  title: v.title,
  price: { amount: v.price.amount, currency: v.price.currency },
  availability: toAvailability(v.availability),
});

/** A variant the offer can show: an id, a title and a price in minor units of a currency code. */
const readableVariant = (v: UcpVariant) =>
  typeof v?.id === 'string' &&
  typeof v.title === 'string' &&
  Number.isSafeInteger(v.price?.amount) &&
  v.price.amount >= 0 &&
  /^[A-Z]{3}$/.test(String(v.price.currency));

/**
 * The offer's variants from a store's product: the readable ones, `wanted` first (the link's
 * variant id, sku, or the tail of an id), else the first. The threat: the store decides how many it
 * lists (a 3 MiB answer holds about 40,000), and the filter, the search and the mapping each
 * walked them all in one call. Walked in slices instead (platform/sliced/work.ts): one unit per
 * variant and per character of the id compared.
 */
export function* offerVariantsSteps(
  listed: UcpVariant[],
  wanted: string | null,
): Steps<{ chosen: UcpVariant; variants: Variant[] } | null> {
  const readable: UcpVariant[] = [];
  let chosen: UcpVariant | undefined;
  for (const v of listed) {
    countWork(1);
    if (readableVariant(v)) {
      readable.push(v);
      countWork(v.id.length);
      if (!chosen && wanted && (v.id === wanted || v.sku === wanted || v.id.endsWith(`/${wanted}`)))
        chosen = v;
    }
    yield* checkpoint();
  }
  chosen ??= readable[0];
  if (!chosen) return null;
  const variants = [toVariant(chosen)];
  for (const v of readable) {
    if (v !== chosen) variants.push(toVariant(v));
    countWork(1);
    yield* checkpoint();
  }
  return { chosen, variants };
}
