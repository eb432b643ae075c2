import { randomUUID } from 'node:crypto';
import { AppError } from '../../../platform/errors.js';
import type { CommerceContext } from '../../context.js';
import type { Merchant } from '../../schemas/resources.js';
import {
  type Product,
  productOfPageOffer,
  type Quote,
  type QuoteInput,
  type StoreAdapter,
  type StoreCheckoutRef,
  type StoreSession,
} from '../adapter.js';
import { storeError, withHealth } from '../health.js';
import { fetchProductPage, readProductPage } from '../product-page/index.js';
import { storeFetchOptions } from '../store-fetch.js';
import { parseStoreJson } from '../store-json.js';
import { cachedStoreProfile, storeProfile, type UcpStoreProfile } from './discovery.js';
import { ucpFetch } from './fetch.js';
import {
  DESTINATION_ID,
  idempotencyKey,
  isErrorResponse,
  isReadableCheckout,
  MESSAGES_KEPT,
  messageText,
  safeLink,
  toLineItems,
  toSession,
  toTotals,
  toUcpBuyer,
  toUcpDestination,
  toVariant,
  type UcpCheckout,
  type UcpMessage,
  type UcpProduct,
} from './mapping.js';
import { CATALOG_CAPABILITY, CATALOG_LOOKUP_CAPABILITY, ucpAgentHeader } from './profile.js';

type Deps = Pick<CommerceContext, 'db' | 'config' | 'clock' | 'logger'>;
type UcpMethods = NonNullable<NonNullable<UcpCheckout['fulfillment']>['methods']>;

const STORE_TIMEOUT_MS = 15_000;
const STORE_MAX_BYTES = 1024 * 1024;

/** The store failed (`timeout` when it did not answer in time): 503 MERCHANT_UNAVAILABLE, counted by withHealth. */
const unavailable = (m: Merchant, why: string, outcome: 'failure' | 'timeout' = 'failure') =>
  storeError(outcome, `${m.name} is not answering right now (${why}). Try again later.`);

/** The store's profile: from the cache (no request, nothing observed), else asked behind the health gate. */
async function profileOf(deps: Deps, merchant: Merchant, url: string): Promise<UcpStoreProfile> {
  const origin = new URL(url).origin;
  return (
    cachedStoreProfile(deps, origin) ??
    withHealth(deps, merchant, async () => {
      const profile = await storeProfile(deps, origin);
      if (!profile) throw unavailable(merchant, 'its UCP profile could not be read');
      return profile;
    })
  );
}

/** One REST operation at the store; mutations carry their Idempotency-Key. */
type StoreOp = { method: string; path: string; body?: unknown; key?: string };

/**
 * One request to the store's REST endpoint with the headers UCP asks for: `UCP-Agent` (our
 * profile), a fresh `Request-Id`, and on mutations the `Idempotency-Key` given. A store that
 * cannot be reached, times out, answers 5xx/429 or answers something that is not JSON is
 * unavailable (503 with Retry-After) and counts against its health (`withHealth`); any other
 * answer is returned for the caller to read.
 */
async function call(
  deps: Deps,
  merchant: Merchant,
  profile: UcpStoreProfile,
  op: StoreOp,
): Promise<{ status: number; body: unknown }> {
  return withHealth(deps, merchant, () => send(deps, merchant, profile, op));
}

async function send(
  deps: Deps,
  merchant: Merchant,
  profile: UcpStoreProfile,
  op: StoreOp,
): Promise<{ status: number; body: unknown }> {
  let res: Response;
  try {
    res = await ucpFetch(deps, `${profile.endpoint}${op.path}`, {
      method: op.method,
      headers: {
        accept: 'application/json',
        'ucp-agent': ucpAgentHeader(deps.config),
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
    const name = (err as Error).name;
    throw name === 'TimeoutError'
      ? unavailable(merchant, 'it timed out', 'timeout')
      : unavailable(merchant, 'it could not be reached');
  }
  if (res.status >= 500 || res.status === 429) {
    await res.body?.cancel().catch(() => undefined);
    throw unavailable(merchant, `it answered HTTP ${res.status}`);
  }
  try {
    return { status: res.status, body: parseStoreJson(await res.text()) };
  } catch {
    throw unavailable(merchant, `it answered HTTP ${res.status} without UCP JSON`);
  }
}

/** The store refused the request with UCP messages: the API error that says what it said. */
function refusal(merchant: Merchant, messages: UcpMessage[]): AppError {
  const first = messages.find((m) => m.type === 'error') ?? messages[0];
  const text = first ? messageText(first) : 'no reason given';
  if (first?.code === 'out_of_stock' || first?.code === 'item_unavailable') {
    return new AppError(422, 'OUT_OF_STOCK', `${merchant.name}: ${first.content}`);
  }
  if (first?.code === 'not_found')
    return new AppError(422, 'PRODUCT_NOT_FOUND', `${merchant.name}: ${first.content}`);
  return new AppError(422, 'MERCHANT_DECLINED', `${merchant.name} refused the request: ${text}`);
}

function checkoutFrom(merchant: Merchant, res: { status: number; body: unknown }): UcpCheckout {
  if (isErrorResponse(res.body)) throw refusal(merchant, res.body.messages);
  const c = res.body;
  if (res.status >= 400 || !isReadableCheckout(c)) {
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

export function ucpAdapter(deps: Deps): StoreAdapter {
  const http = storeFetchOptions(deps.config).allowPrivate;

  const quoteOf = (c: UcpCheckout, merchant: Merchant): Quote => ({
    line_items: toLineItems(c),
    totals: toTotals(c),
    messages: (c.messages ?? []).slice(-MESSAGES_KEPT).map(messageText),
    session: toSession(c, merchant, http),
  });

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

  async function update(input: QuoteInput, profile: UcpStoreProfile, c: UcpCheckout | null, seq: number) {
    const id = c?.id ?? sessionId(input.session);
    const body = updateBody(input, c);
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

  async function getSession(ref: StoreCheckoutRef, profile: UcpStoreProfile): Promise<UcpCheckout> {
    const res = await call(deps, ref.merchant, profile, {
      method: 'GET',
      path: `/checkout-sessions/${encodeURIComponent(String(sessionId(ref.session)))}`,
    });
    return checkoutFrom(ref.merchant, res);
  }

  async function lookup(merchant: Merchant, url: string, profile: UcpStoreProfile): Promise<Product | null> {
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
    const readable = (v: UcpProduct['variants'][number]) =>
      typeof v?.id === 'string' &&
      typeof v.title === 'string' &&
      Number.isSafeInteger(v.price?.amount) &&
      v.price.amount >= 0 &&
      /^[A-Z]{3}$/.test(String(v.price.currency));
    if (!product || typeof product.title !== 'string' || !Array.isArray(product.variants)) return null;
    product.variants = product.variants.filter(readable);
    if (product.variants.length === 0) return null;
    const wanted = u.searchParams.get('variant') ?? u.searchParams.get('sku');
    const chosen =
      (wanted &&
        product.variants.find((v) => v.id === wanted || v.sku === wanted || v.id.endsWith(`/${wanted}`))) ||
      product.variants[0];
    if (!chosen) return null;
    const image =
      chosen.media?.find((m) => m.type === 'image') ?? product.media?.find((m) => m.type === 'image');
    return {
      title: product.title,
      image_url: safeLink(image?.url, http),
      variants: [chosen, ...product.variants.filter((v) => v !== chosen)].map(toVariant),
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
        if (fetched.reason === 'HTTP_STATUS' && fetched.status === 404) {
          throw new AppError(422, 'PRODUCT_NOT_FOUND', `${merchant.name} has no product at this link.`);
        }
        throw unavailable(merchant, fetched.message, fetched.reason === 'TIMEOUT' ? 'timeout' : 'failure');
      });
      const read = readProductPage(page.body, url);
      if (!read.ok) throw new AppError(422, 'PRODUCT_NOT_FOUND', `${merchant.name}: ${read.message}`);
      return productOfPageOffer(read.offer);
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
      return quoteOf(c, input.merchant);
    },

    challenge() {
      return null;
    },

    verify() {
      return { ok: false, message: 'This store asks for no code.' };
    },

    async placeOrder(input) {
      const profile = await profileOf(deps, input.merchant, input.url);
      const instrument = input.session?.data.instrument ?? null;
      const res = await call(deps, input.merchant, profile, {
        method: 'POST',
        path: `/checkout-sessions/${encodeURIComponent(String(sessionId(input.session)))}/complete`,
        body: { payment: { instruments: instrument ? [instrument] : [] } },
        key: idempotencyKey(input.checkout_id, 'complete'),
      });
      if (isErrorResponse(res.body)) {
        const err = refusal(input.merchant, res.body.messages);
        return {
          ok: false,
          error: { code: err.code, message: err.message },
          messages: res.body.messages.map(messageText),
        };
      }
      const c = checkoutFrom(input.merchant, res);
      const session = toSession(c, input.merchant, http);
      const messages = (c.messages ?? []).map(messageText);
      if (session.state === 'completed' && c.order) {
        return {
          ok: true,
          merchant_order_ref: c.order.id,
          messages: [...messages, `Order ${c.order.id} placed at ${input.merchant.name}.`],
        };
      }
      if (session.state === 'action' || session.state === 'confirming') {
        return { ok: 'waiting', action: session.action, session, messages };
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
      const c = await getSession(ref, await profileOf(deps, ref.merchant, ref.url));
      if (c.status === 'completed' && c.order) return { state: 'placed', merchant_order_ref: c.order.id };
      if (c.status === 'canceled') return { state: 'not_placed' };
      return { state: 'unknown', reason: `the store's checkout is ${c.status}` };
    },

    async cancel(ref) {
      if (!ref.session) return;
      const profile = await profileOf(deps, ref.merchant, ref.url);
      const res = await call(deps, ref.merchant, profile, {
        method: 'POST',
        path: `/checkout-sessions/${encodeURIComponent(String(sessionId(ref.session)))}/cancel`,
        key: idempotencyKey(ref.checkout_id, 'cancel'),
      });
      if (isErrorResponse(res.body)) throw refusal(ref.merchant, res.body.messages);
    },

    async refresh(ref) {
      const c = await getSession(ref, await profileOf(deps, ref.merchant, ref.url));
      const quote = quoteOf(c, ref.merchant);
      return {
        session: quote.session as StoreSession,
        quote,
        order_ref: c.status === 'completed' && c.order ? c.order.id : null,
      };
    },
  };
}
