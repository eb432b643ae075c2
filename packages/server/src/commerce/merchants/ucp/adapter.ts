import { randomUUID } from 'node:crypto';
import { AppError } from '../../../platform/errors.js';
import { BodyTooLargeError } from '../../../platform/net/public-url.js';
import { parseOutsideJsonSteps } from '../../../platform/sliced/json.js';
import { readSliced } from '../../../platform/sliced/work.js';
import type { CommerceContext } from '../../context.js';
import type { Merchant } from '../../schemas/resources.js';
import {
  type PlaceResult,
  type Product,
  productOfPageOffer,
  type Quote,
  type QuoteInput,
  type StoreAdapter,
  type StoreCheckoutRef,
  type StoreSession,
} from '../adapter.js';
import { storeError, withHealth } from '../health.js';
import { fetchProductPage, readProductPageSliced } from '../product-page/index.js';
import { storeFetchOptions } from '../store-fetch.js';
import { messageLines, refusalOf, type StoreAnswer } from './answers.js';
import { cachedStoreProfile, storeProfile, type UcpStoreProfile } from './discovery.js';
import { ucpFetch } from './fetch.js';
import {
  DESTINATION_ID,
  idempotencyKey,
  instrumentRef,
  isErrorResponse,
  isReadableCheckout,
  MESSAGES_KEPT,
  messageText,
  offerVariantsSteps,
  orderRefOf,
  safeLink,
  toLineItems,
  toSession,
  toTotals,
  toUcpBuyer,
  toUcpDestination,
  type UcpCheckout,
  type UcpProduct,
} from './mapping.js';
import { type CardTokenizer, cardTokenizerOf } from './payment-handlers.js';
import {
  CATALOG_CAPABILITY,
  CATALOG_LOOKUP_CAPABILITY,
  isSupportedVersion,
  SUPPORTED_VERSIONS,
  type UcpVersion,
  ucpAgentHeader,
} from './profile.js';

type Deps = Pick<CommerceContext, 'db' | 'config' | 'clock' | 'logger'>;
type UcpMethods = NonNullable<NonNullable<UcpCheckout['fulfillment']>['methods']>;

const STORE_TIMEOUT_MS = 15_000;
const STORE_MAX_BYTES = 1024 * 1024;

/** The store failed (`timeout` when it did not answer in time): 503 MERCHANT_UNAVAILABLE, counted by withHealth. */
const unavailable = (m: Merchant, why: string, outcome: 'failure' | 'timeout' = 'failure') =>
  storeError(outcome, `${m.name} is not answering right now (${why}). Try again later.`);

/** A store profile whose version this platform speaks. */
type Speakable = UcpStoreProfile & { version: UcpVersion };

/**
 * The store's profile: from the cache (no request, nothing observed), else asked behind the health
 * gate. A store that declares a version this platform does not speak is refused before anything is
 * sent to it: UCP's negotiation says a platform never speaks a version the business did not declare.
 */
async function profileOf(deps: Deps, merchant: Merchant, url: string): Promise<Speakable> {
  const origin = new URL(url).origin;
  const profile =
    cachedStoreProfile(deps, origin) ??
    (await withHealth(deps, merchant, async () => {
      const found = await storeProfile(deps, origin);
      if (!found) throw unavailable(merchant, 'its UCP profile could not be read');
      return found;
    }));
  if (!isSupportedVersion(profile.version)) {
    throw new AppError(
      422,
      'MERCHANT_NOT_SUPPORTED',
      `${merchant.name} speaks UCP version ${profile.version ? `'${profile.version}'` : '(none declared)'}; this server speaks ${SUPPORTED_VERSIONS.join(' and ')}, and never a version the store did not declare. Nothing was sent to the store.`,
    );
  }
  return profile as Speakable;
}

/**
 * One REST operation at the store; mutations carry their Idempotency-Key. `anyAnswer`: a 2xx that
 * is not JSON is returned (body null) rather than treated as an outage, for the caller to judge
 * (a `complete` the store took must never be mistaken for one it did not get).
 */
type StoreOp = { method: string; path: string; body?: unknown; key?: string; anyAnswer?: boolean };

/**
 * One request to the store's REST endpoint with the headers UCP asks for: `UCP-Agent` (our
 * profile), a fresh `Request-Id`, and on mutations the `Idempotency-Key` given. A store that
 * cannot be reached, times out, answers 5xx/429 or answers something that is not JSON is
 * unavailable (503 with Retry-After) and counts against its health (`withHealth`); any other
 * answer is returned for the caller to read.
 */
async function call(deps: Deps, merchant: Merchant, profile: Speakable, op: StoreOp): Promise<StoreAnswer> {
  return withHealth(deps, merchant, () => send(deps, merchant, profile, op));
}

/**
 * Sends one request and reads the answer. Only the store's own failures are `unavailable` and
 * counted against its health: no connection, a timeout, a 5xx. A 429 is unavailable too, but the
 * store is up (`busy`, not counted). Every 4xx is returned as the store's answer, JSON or not
 * (`{"detail"}`, text/plain): the caller reads what it means (`refusalOf`).
 */
async function send(deps: Deps, merchant: Merchant, profile: Speakable, op: StoreOp): Promise<StoreAnswer> {
  let res: Response;
  try {
    res = await ucpFetch(deps, `${profile.endpoint}${op.path}`, {
      method: op.method,
      headers: {
        accept: 'application/json',
        'ucp-agent': ucpAgentHeader(deps.config, profile.version),
        'request-id': randomUUID(),
        ...(op.key ? { 'idempotency-key': op.key } : {}),
        ...(op.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(op.body === undefined ? {} : { body: JSON.stringify(op.body) }),
      timeoutMs: STORE_TIMEOUT_MS,
      maxBytes: STORE_MAX_BYTES,
    });
  } catch (err) {
    if (err instanceof AppError) throw err;
    // It answered, too much to read: for a complete, an answer all the same (the store got it).
    if (err instanceof BodyTooLargeError) return tooLarge(merchant, op, 0);
    const name = (err as Error).name;
    throw name === 'TimeoutError'
      ? unavailable(merchant, 'it timed out', 'timeout')
      : unavailable(merchant, 'it could not be reached');
  }
  if (res.status === 429) {
    await res.body?.cancel().catch(() => undefined);
    throw storeError('busy', `${merchant.name} asks us to slow down (HTTP 429). Try again later.`);
  }
  if (res.status >= 500) {
    await res.body?.cancel().catch(() => undefined);
    throw unavailable(merchant, `it answered HTTP ${res.status}`);
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (err instanceof BodyTooLargeError) return tooLarge(merchant, op, res.status);
    throw err;
  }
  let body: unknown = null;
  try {
    body = await readSliced(parseOutsideJsonSteps(text));
  } catch {
    // A 4xx in text/plain is still an answer; a 2xx that is not JSON is not one we can read.
    if (res.status < 400 && !op.anyAnswer)
      throw unavailable(merchant, `it answered HTTP ${res.status} without UCP JSON`);
  }
  return { status: res.status, body, text };
}

/**
 * An answer larger than STORE_MAX_BYTES (`status` 0 when its headers already said so): unread.
 * Where any answer counts (`complete`), it is one whose body could not be read; elsewhere the
 * store failed us.
 */
function tooLarge(merchant: Merchant, op: StoreOp, status: number): StoreAnswer {
  if (!op.anyAnswer) throw unavailable(merchant, `its answer was larger than ${STORE_MAX_BYTES} bytes`);
  return { status, body: null, text: '' };
}

/** A checkout session from a 2xx; a 4xx is the store's refusal (what it means, in its words). */
function checkoutFrom(merchant: Merchant, res: StoreAnswer): UcpCheckout {
  if (res.status >= 400 || isErrorResponse(res.body)) throw refusalOf(merchant, res);
  const c = res.body;
  if (!isReadableCheckout(c)) {
    throw unavailable(merchant, `it answered HTTP ${res.status} without a readable checkout session`);
  }
  return c;
}

/** A path segment as the store would name it; a malformed escape stays as written. */
function decodedHandle(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const sessionId = (s: StoreSession | null) => (s ? String(s.data.id) : null);

/**
 * The complete's body in the store's version: 2026-04-08 lists the instruments under `payment`
 * (the one used `selected`); 2026-01-11 sends the one instrument as `payment_data`.
 */
function completeBody(version: UcpVersion, instrument: Record<string, unknown> | null) {
  if (version === '2026-01-11') return instrument ? { payment_data: instrument } : {};
  return { payment: { instruments: instrument ? [{ ...instrument, selected: true }] : [] } };
}

/**
 * Why a checkout's `complete` is never sent again, kept on its session: `card` (the token was
 * never kept) or `unreadable` (the store took it and answered what could not be read). Retries
 * and recovery then read the store's checkout instead (`outcomeFromStore`).
 */
type CompleteSent = 'card' | 'unreadable';
const markSent = (session: StoreSession, sent: CompleteSent): StoreSession => ({
  ...session,
  data: { ...session.data, complete_sent: sent },
});

/**
 * A complete the store answered `completed`: the order is recorded whatever else the answer lacks
 * (a 2026-01-11 store names it in a top-level `order_id`, some send no totals), and what was
 * missing is said in the messages. Without any order id, the store's session id stands for it.
 * Null when the answer is not a completed checkout.
 */
function completedOrder(body: unknown, merchant: Merchant): PlaceResult | null {
  const c = body as Partial<UcpCheckout> | null;
  if (c?.status !== 'completed') return null;
  const ref = orderRefOf(c as UcpCheckout);
  const session = typeof c.id === 'string' ? c.id : null;
  const missing = [
    ...(c.order ? [] : ['no order object']),
    ...(ref ? [] : ['no order id']),
    ...(isReadableCheckout(c) ? [] : ['no readable line items or totals (ours are kept)']),
  ];
  const id = ref ?? session ?? 'unknown';
  return {
    ok: true,
    merchant_order_ref: id,
    messages: [
      ...messageLines(Array.isArray(c.messages) ? c.messages : []),
      `Order ${id} placed at ${merchant.name}.`,
      ...(missing.length
        ? [
            `${merchant.name} answered completed with ${missing.join(', ')}${ref ? '' : `; its checkout session id ${id} stands for the order`}.`,
          ]
        : []),
    ],
  };
}

export function ucpAdapter(deps: Deps): StoreAdapter {
  const http = storeFetchOptions(deps.config).allowPrivate;

  const quoteOf = (
    c: UcpCheckout,
    merchant: Merchant,
    profile: Speakable,
    everythingSent = false,
  ): Quote => ({
    line_items: toLineItems(c),
    totals: toTotals(c),
    messages: (c.messages ?? []).slice(-MESSAGES_KEPT).map(messageText),
    session: toSession(c, merchant, http, everythingSent, cardTokenizerOf(profile.paymentHandlers, http)),
  });

  /**
   * Where the store's checkout stands after a complete whose outcome is not in hand, read from the
   * store and never sent again: a card checkout whose token is gone (a retried confirm, recovery
   * after a lost answer: the token lived only in the request that received it), or a complete the
   * store answered with a 2xx that could not be read (sending it again under its key would only
   * replay that answer, or worse, place a second order at a store that ignores the key).
   * Completed is the order; still being placed, or with the buyer at the store, waits; anything
   * else means the complete did not take, and nothing was ordered.
   */
  async function outcomeFromStore(
    input: QuoteInput,
    profile: Speakable,
    sent: CompleteSent,
  ): Promise<PlaceResult> {
    const { c, placed } = await readSession(input, profile);
    if (placed) {
      return {
        ok: true,
        merchant_order_ref: placed,
        messages: [`${input.merchant.name} reports order ${placed} for this checkout.`],
      };
    }
    const session = c ? toSession(c, input.merchant, http) : null;
    if (session && (session.state === 'confirming' || session.state === 'action')) {
      return { ok: 'waiting', action: session.action, session: markSent(session, sent), messages: [] };
    }
    const status = c?.status ?? 'unknown';
    const why =
      sent === 'card'
        ? "the card payment cannot be sent again: the card's token is never kept"
        : 'its answer to the complete could not be read, and it is not sent twice';
    return {
      ok: false,
      error: {
        code: 'ORDER_NOT_PLACED',
        message: `${input.merchant.name} did not place the order (its checkout is ${status}) and ${why}. Nothing was ordered; create a new checkout to try again.`,
      },
      messages: [],
    };
  }

  /**
   * A `complete` the store answered 2xx with something that is not a checkout session (an HTML
   * page, `{"ok": true}`): it got the request and may have placed the order. Its checkout is read
   * at once; unless that settles it, ours stays `confirming`, marked so that recovery reads the
   * store's checkout again rather than send the complete a second time.
   */
  async function afterUnreadableComplete(
    input: QuoteInput,
    profile: Speakable,
    status: number,
  ): Promise<PlaceResult> {
    const said = `${input.merchant.name} answered the order's complete with ${status ? `HTTP ${status} and a body that is not a checkout session` : `an answer larger than ${STORE_MAX_BYTES} bytes, not read`}`;
    const pending = (session: StoreSession): PlaceResult => ({
      ok: 'waiting',
      action: null,
      session: markSent(session, 'unreadable'),
      messages: [
        `${said}; whether it placed the order is not known yet. The checkout stays confirming and its checkout at the store is read again (the complete is never sent twice).`,
      ],
    });
    let read: Awaited<ReturnType<typeof readSession>>;
    try {
      read = await readSession(input, profile);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return pending(input.session ?? { state: 'confirming', action: null, data: {} });
    }
    if (read.placed) {
      return {
        ok: true,
        merchant_order_ref: read.placed,
        messages: [`${said}; its checkout reports order ${read.placed}.`],
      };
    }
    const session = read.c ? toSession(read.c, input.merchant, http) : null;
    if (session?.state === 'action') {
      return {
        ok: 'waiting',
        action: session.action,
        session: markSent(session, 'unreadable'),
        messages: [],
      };
    }
    return pending(session ?? (input.session as StoreSession));
  }

  /**
   * What a 2026-01-11 store also needs on create and update: the currency and a payment object
   * (and, on update, the session's id); 2026-04-08 takes none of them.
   */
  function versionFields(input: QuoteInput, profile: Speakable, c: UcpCheckout | null, id?: string) {
    if (profile.version !== '2026-01-11') return {};
    const currency = c?.currency ?? (input.session?.data.currency as string | undefined) ?? input.currency;
    if (!currency) {
      throw new AppError(
        422,
        'MERCHANT_NOT_SUPPORTED',
        `${input.merchant.name} speaks UCP 2026-01-11, which needs the currency on every checkout, and the item's price is not known here. Create the checkout from an offer (POST /v1/offers) instead.`,
      );
    }
    return { ...(id ? { id } : {}), currency, payment: {} };
  }

  /** A body for PUT /checkout-sessions/{id}: the whole checkout as we want it (update semantics). */
  function updateBody(input: QuoteInput, c: UcpCheckout | null) {
    const lineId = c?.line_items[0]?.id ?? (input.session?.data.line_item_ids as string[] | undefined)?.[0];
    const methods = c?.fulfillment?.methods ?? (input.session?.data.methods as UcpMethods | undefined) ?? [];
    const method = methods[0];
    const buyer = toUcpBuyer(input.buyer, input.address);
    return {
      line_items: [
        { ...(lineId ? { id: lineId } : {}), item: { id: input.item_ref }, quantity: input.quantity },
      ],
      ...(buyer ? { buyer } : {}),
      ...(input.address && lineId
        ? {
            fulfillment: {
              methods: [
                {
                  ...(method ? { id: method.id } : {}),
                  type: 'shipping',
                  line_item_ids: [lineId],
                  destinations: [toUcpDestination(input.address)],
                  selected_destination_id: DESTINATION_ID,
                  ...(method?.groups?.length
                    ? {
                        groups: method.groups.map((g) => ({
                          id: g.id,
                          selected_option_id: g.selected_option_id ?? g.options?.[0]?.id ?? null,
                        })),
                      }
                    : {}),
                },
              ],
            },
          }
        : {}),
    };
  }

  async function update(input: QuoteInput, profile: Speakable, c: UcpCheckout | null, seq: number) {
    const id = c?.id ?? sessionId(input.session);
    const body = { ...updateBody(input, c), ...versionFields(input, profile, c, String(id)) };
    const res = await call(deps, input.merchant, profile, {
      method: 'PUT',
      path: `/checkout-sessions/${encodeURIComponent(String(id))}`,
      body,
      // The same update retried reuses its key; a different one (the first answer was lost and the
      // user changed their mind) gets its own, so the store does not refuse it as a key reused.
      key: idempotencyKey(input.checkout_id, `update:${JSON.stringify(body)}`, seq),
    });
    return checkoutFrom(input.merchant, res);
  }

  /** Chooses the store's first fulfillment option where it left a group without one. */
  const needsOptionChoice = (c: UcpCheckout) =>
    c.status === 'incomplete' &&
    (c.fulfillment?.methods ?? []).some((m) =>
      (m.groups ?? []).some((g) => !g.selected_option_id && (g.options?.length ?? 0) > 0),
    );

  /**
   * The store's session as it is now. A session the store reports `completed` names its order
   * (`placed`) even when the rest of the answer cannot be read (some 2026-01-11 stores drop line
   * items and totals once completed): an order the store placed is never lost for a missing total.
   */
  async function readSession(
    ref: StoreCheckoutRef,
    profile: Speakable,
  ): Promise<{ c: UcpCheckout | null; placed: string | null }> {
    const res = await call(deps, ref.merchant, profile, {
      method: 'GET',
      path: `/checkout-sessions/${encodeURIComponent(String(sessionId(ref.session)))}`,
    });
    const done = res.status < 400 ? completedOrder(res.body, ref.merchant) : null;
    const placed = done?.ok === true ? done.merchant_order_ref : null;
    if (placed && !isReadableCheckout(res.body)) return { c: null, placed };
    return { c: checkoutFrom(ref.merchant, res), placed };
  }

  /** `POST /catalog/product`: the product with all its variants; null when the store will not say. */
  async function wholeProduct(
    merchant: Merchant,
    profile: Speakable,
    id: string,
  ): Promise<UcpProduct | null> {
    const res = await call(deps, merchant, profile, {
      method: 'POST',
      path: '/catalog/product',
      body: { id },
    });
    const body = res.body as { product?: UcpProduct } | null;
    return res.status < 400 && body?.product && typeof body.product === 'object' ? body.product : null;
  }

  async function lookup(merchant: Merchant, url: string, profile: Speakable): Promise<Product | null> {
    const u = new URL(url);
    const handle = u.pathname.split('/').filter(Boolean).pop();
    const res = await call(deps, merchant, profile, {
      method: 'POST',
      path: '/catalog/lookup',
      body: { ids: [url, ...(handle ? [decodedHandle(handle)] : [])] },
    });
    const body = res.body as { products?: UcpProduct[] };
    if (isErrorResponse(res.body) || res.status >= 400) return null;
    const products = Array.isArray(body?.products) ? body.products : [];
    const product = products.find((p) => p.url === url) ?? products[0];
    if (!product || typeof product.title !== 'string' || !Array.isArray(product.variants)) return null;
    if (product.variants.length === 1 && typeof product.id === 'string') {
      // Lookup answers the variants the ids matched (often only the featured one); the product's
      // own page in the catalog lists them all, so the offer's `variants` are the store's choices.
      const whole = await wholeProduct(merchant, profile, product.id);
      if (whole && whole.id === product.id && Array.isArray(whole.variants) && whole.variants.length > 1) {
        product.variants = whole.variants;
      }
    }
    const wanted = u.searchParams.get('variant') ?? u.searchParams.get('sku');
    const offered = await readSliced(offerVariantsSteps(product.variants, wanted));
    if (!offered) return null;
    const { chosen, variants } = offered;
    const image =
      chosen.media?.find((m) => m.type === 'image') ?? product.media?.find((m) => m.type === 'image');
    return {
      title: product.title,
      image_url: safeLink(image?.url, http),
      variants,
    };
  }

  return {
    stateful: true,

    async product(merchant, url) {
      const profile = await profileOf(deps, merchant, url);
      if (
        profile.capabilities.has(CATALOG_LOOKUP_CAPABILITY) ||
        profile.capabilities.has(CATALOG_CAPABILITY)
      ) {
        const found = await lookup(merchant, url, profile);
        if (found) return found;
      }
      // No catalog (or the catalog does not know the link): the product page says what it sells.
      const page = await withHealth(deps, merchant, async () => {
        const fetched = await fetchProductPage(url, storeFetchOptions(deps.config));
        if (fetched.ok) return fetched;
        // A 4xx is the store's answer about this link, not an outage (only 5xx, timeouts and
        // network errors count against its health).
        if (fetched.reason === 'HTTP_STATUS' && fetched.status !== undefined && fetched.status < 500) {
          throw new AppError(
            422,
            'PRODUCT_NOT_FOUND',
            `${merchant.name} has no product page at this link (HTTP ${fetched.status}) and no catalog entry for it. If it is a headless store, name the store's item id as item_ref with this URL (POST /v1/offers or POST /v1/checkouts with product_url).`,
          );
        }
        throw unavailable(merchant, fetched.message, fetched.reason === 'TIMEOUT' ? 'timeout' : 'failure');
      });
      const read = await readProductPageSliced(page.body, url);
      if (!read.ok) throw new AppError(422, 'PRODUCT_NOT_FOUND', `${merchant.name}: ${read.message}`);
      return productOfPageOffer(read.offer);
    },

    async priceItem(merchant, url, itemRef, ref) {
      const profile = await profileOf(deps, merchant, url);
      if (profile.version === '2026-01-11') {
        throw new AppError(
          422,
          'MERCHANT_NOT_SUPPORTED',
          `${merchant.name} speaks UCP 2026-01-11, which needs the currency before a checkout session opens, and it publishes neither a catalog nor product pages to learn it from. Nothing was sent to the store.`,
        );
      }
      const res = await call(deps, merchant, profile, {
        method: 'POST',
        path: '/checkout-sessions',
        body: { line_items: [{ item: { id: itemRef }, quantity: 1 }] },
        key: idempotencyKey(ref, 'price'),
      });
      // The store's refusal says what is wrong with the item (no such item, out of stock).
      const c = checkoutFrom(merchant, res);
      const line = c.line_items.find((li) => li.item.id === itemRef) ?? c.line_items[0];
      // The session was opened only for its price: canceled at once (a store that will not, lets it expire).
      await call(deps, merchant, profile, {
        method: 'POST',
        path: `/checkout-sessions/${encodeURIComponent(c.id)}/cancel`,
        key: idempotencyKey(ref, 'price-cancel'),
      }).catch((err: Error) => deps.logger.info({ err: err.message }, 'could not cancel a pricing session'));
      const title = line?.item.title ?? itemRef;
      return {
        title,
        image_url: safeLink(line?.item.image_url, http),
        variants: [
          {
            item_ref: itemRef,
            title,
            price: { amount: line?.item.price ?? 0, currency: c.currency },
            availability: 'in_stock',
          },
        ],
      };
    },

    async quote(input) {
      const profile = await profileOf(deps, input.merchant, input.url);
      let c: UcpCheckout;
      if (!input.session) {
        const buyer = toUcpBuyer(input.buyer, input.address);
        const res = await call(deps, input.merchant, profile, {
          method: 'POST',
          path: '/checkout-sessions',
          body: {
            line_items: [{ item: { id: input.item_ref }, quantity: input.quantity }],
            ...versionFields(input, profile, null),
            ...(buyer ? { buyer } : {}),
            ...(input.address
              ? {
                  fulfillment: {
                    methods: [
                      {
                        type: 'shipping',
                        destinations: [toUcpDestination(input.address)],
                        selected_destination_id: DESTINATION_ID,
                      },
                    ],
                  },
                }
              : {}),
          },
          key: idempotencyKey(input.checkout_id, 'create'),
        });
        c = checkoutFrom(input.merchant, res);
      } else {
        c = await update(input, profile, null, input.reprice_count);
      }
      // A store that lists shipping options without choosing one: take its first (cheapest by its order).
      if (needsOptionChoice(c)) c = await update(input, profile, c, input.reprice_count * 2 + 1_000_001);
      return quoteOf(c, input.merchant, profile, Boolean(input.buyer?.email && input.address));
    },

    challenge() {
      return null;
    },

    verify() {
      return { ok: false, message: 'This store asks for no code.' };
    },

    async placeOrder(input) {
      const profile = await profileOf(deps, input.merchant, input.url);
      const card = input.session?.payment === 'card' ? (input.session.data.card as CardTokenizer) : null;
      const sent = input.session?.data.complete_sent as CompleteSent | undefined;
      if (sent) return outcomeFromStore(input, profile, sent);
      if (card && !input.payment_token) return outcomeFromStore(input, profile, 'card');
      const instrument = card
        ? {
            id: `card_${input.checkout_id}`,
            handler_id: card.handler_id,
            type: 'card',
            // What the buyer's browser read off the card it tokenized (brand, last four digits):
            // display data, which a 2026-01-11 card instrument requires.
            ...(input.payment_card ?? {}),
            // UCP's token credential: the tokenizer's token, bound to this checkout session.
            credential: { type: 'token', token: input.payment_token },
          }
        : instrumentRef(input.session?.data.instrument);
      const res = await call(deps, input.merchant, profile, {
        method: 'POST',
        path: `/checkout-sessions/${encodeURIComponent(String(sessionId(input.session)))}/complete`,
        body: completeBody(profile.version, instrument),
        key: idempotencyKey(input.checkout_id, 'complete'),
        anyAnswer: true,
      });
      if (res.status >= 400 || isErrorResponse(res.body)) {
        // A 409 may mean the session is already completed (an earlier complete placed the order):
        // ask before calling it a refusal, so an order the store placed is never lost.
        if (res.status === 409) {
          const ref = (await readSession(input, profile).catch(() => null))?.placed;
          if (ref) {
            return {
              ok: true,
              merchant_order_ref: ref,
              messages: [`${input.merchant.name} reports order ${ref} for this checkout.`],
            };
          }
        }
        const err = refusalOf(input.merchant, res);
        return {
          ok: false,
          // No item at a complete means the session is gone, not the product.
          error: {
            code: err.code === 'PRODUCT_NOT_FOUND' ? 'MERCHANT_DECLINED' : err.code,
            message: err.message,
          },
          messages: isErrorResponse(res.body) ? messageLines(res.body.messages) : [],
        };
      }
      const placed = completedOrder(res.body, input.merchant);
      if (placed) return placed;
      if (!isReadableCheckout(res.body)) return afterUnreadableComplete(input, profile, res.status);
      const c = res.body;
      const session = toSession(c, input.merchant, http);
      const messages = messageLines(c.messages);
      if (session.state === 'action' || session.state === 'confirming') {
        // A card's token is gone after this call: what comes next is read from the store.
        const waiting = card ? markSent(session, 'card') : session;
        return { ok: 'waiting', action: session.action, session: waiting, messages };
      }
      const reason = (c.messages ?? []).find((m) => m.type === 'error');
      return {
        ok: false,
        error: {
          code: 'MERCHANT_DECLINED',
          message: `${input.merchant.name} did not place the order${reason ? `: ${reason.content}` : ` (its checkout is ${c.status})`}.`,
        },
        messages,
      };
    },

    async orderStatus(ref) {
      if (!ref.session) return { state: 'not_placed' };
      const { c, placed } = await readSession(ref, await profileOf(deps, ref.merchant, ref.url));
      if (placed) return { state: 'placed', merchant_order_ref: placed };
      if (c?.status === 'canceled') return { state: 'not_placed' };
      return { state: 'unknown', reason: `the store's checkout is ${c?.status}` };
    },

    async cancel(ref) {
      if (!ref.session) return;
      const profile = await profileOf(deps, ref.merchant, ref.url);
      const res = await call(deps, ref.merchant, profile, {
        method: 'POST',
        path: `/checkout-sessions/${encodeURIComponent(String(sessionId(ref.session)))}/cancel`,
        key: idempotencyKey(ref.checkout_id, 'cancel'),
      });
      if (res.status >= 400 || isErrorResponse(res.body)) throw refusalOf(ref.merchant, res);
    },

    async refresh(ref) {
      const profile = await profileOf(deps, ref.merchant, ref.url);
      const { c, placed } = await readSession(ref, profile);
      if (!c) {
        // Completed, with an answer too thin to re-price from: our figures stand, the order is recorded.
        const data = { ...(ref.session?.data ?? {}), status: 'completed', order_ref: placed };
        return { session: { state: 'completed', action: null, data }, quote: null, order_ref: placed };
      }
      const quote = quoteOf(c, ref.merchant, profile);
      return { session: quote.session as StoreSession, quote, order_ref: placed };
    },
  };
}
