import type { TransactionOptions } from '../../platform/db/sql.js';
import { AppError, invalidRequest } from '../../platform/errors.js';
import type { IdempotentRequest } from '../../platform/http/idempotency.js';
import type { Actor, CommerceContext } from '../context.js';
import type { CheckoutRecord } from '../db/checkouts-store.js';
import type { CommerceStores } from '../db/stores.js';
import { commerceStores } from '../db/stores.js';
import type { PlaceResult, Product, QuoteInput } from '../merchants/adapter.js';
import { StoreUnavailable } from '../merchants/health.js';
import { adapterFor } from '../merchants/index.js';
import type { StorePageReads } from '../merchants/long-tail/read.js';
import { configuredBaseUrl } from '../merchants/ucp/profile.js';
import type { Buyer, ConnectionStatus, ShippingAddress } from '../schemas/common.js';
import type { ApprovalRules, Checkout, Merchant, Variant } from '../schemas/resources.js';
import { OPEN, ownerOf, persist, saveChecked, settle, stateError } from './checkout-machine.js';
import { type Owner, setConnection } from './connections.js';
import { getMerchant, merchantForUrl, parseProductUrl, requireUsable } from './merchants.js';
import { notAVariant } from './offers.js';
import { checkAllowedMerchant, checkSpendingLimits } from './rules.js';
import { toCheckout, toOrder } from './serialize.js';
import { tokenHash } from './tokens.js';

export interface CheckoutActor extends Actor {
  rules: ApprovalRules;
}

export interface CreateCheckoutInput {
  offer_id?: string | undefined;
  product_url?: string | undefined;
  item_ref?: string | undefined;
  quantity: number;
  buyer?: Buyer | undefined;
  shipping_address?: ShippingAddress | undefined;
}

const MAX_MESSAGES = 20;
const withMessages = (c: CheckoutRecord, messages: string[]) =>
  [...c.merchant_messages, ...messages].slice(-MAX_MESSAGES);

/** The offer's own figures, for a checkout that fails as sold out without asking the store. */
const soldOutQuote = (variant: Variant, quantity: number) => {
  const subtotal = { amount: variant.price.amount * quantity, currency: variant.price.currency };
  return {
    line_items: [{ item_ref: variant.item_ref, title: variant.title, quantity, unit_price: variant.price }],
    totals: { subtotal, shipping: null, tax: null, total: subtotal },
    messages: [] as string[],
    session: undefined,
  };
};

const notFound = (id: string) => new AppError(404, 'NOT_FOUND', `No checkout with id '${id}'.`);

async function load(s: CommerceStores, owner: Owner, id: string): Promise<CheckoutRecord> {
  const c = await s.checkouts.findForUser(owner, id);
  if (!c) throw notFound(id);
  return c;
}

/** Runs `fn` in one transaction and starts delivery of the events it wrote once it commits. */
async function inTransaction<T>(
  ctx: CommerceContext,
  fn: (s: CommerceStores) => Promise<T>,
  opts?: TransactionOptions,
): Promise<T> {
  const out = await ctx.db.transaction((tx) => fn(commerceStores(tx)), opts);
  ctx.eventsWritten();
  return out;
}

async function productFor(
  ctx: CommerceContext,
  actor: CheckoutActor,
  input: CreateCheckoutInput,
  reads: StorePageReads,
) {
  if (input.offer_id) {
    const offer = await commerceStores(ctx.db).offers.get(actor, input.offer_id);
    if (!offer)
      throw new AppError(404, 'NOT_FOUND', `No offer with id '${input.offer_id}'.`, { param: 'offer_id' });
    if (offer.expires_at <= ctx.clock.now().toISOString()) {
      throw new AppError(
        422,
        'OFFER_EXPIRED',
        `Offer ${offer.id} expired at ${offer.expires_at}; offers last 15 minutes. Get a fresh one with POST /v1/offers.`,
        { param: 'offer_id' },
      );
    }
    if (input.product_url !== undefined && input.product_url !== offer.url) {
      throw invalidRequest("'product_url' must match the offer's url when both are sent.", 'product_url');
    }
    const merchant = requireUsable(
      actor.env,
      await getMerchant(commerceStores(ctx.db), actor.env, offer.merchant_id),
    );
    return {
      merchant,
      url: offer.url,
      offerId: offer.id,
      variants: offer.variants,
      defaultRef: offer.item_ref,
    };
  }
  if (input.product_url === undefined) {
    throw invalidRequest("Send 'offer_id' or 'product_url'.", 'offer_id');
  }
  const url = parseProductUrl(input.product_url, 'product_url');
  const merchant = await merchantForUrl(ctx, actor.env, url, { reads });
  const adapter = adapterFor(ctx, merchant, actor.env, reads);
  let product: Product;
  try {
    product = await adapter.product(merchant, url.href);
  } catch (err) {
    // A headless store (no catalog capability, no product page) is bought from by naming its item:
    // the session opens on `item_ref` and the store prices it (docs/commerce/live.md).
    const named = input.item_ref && adapter.stateful;
    if (!named || !(err instanceof AppError) || err.code !== 'PRODUCT_NOT_FOUND') throw err;
    const item: Variant = {
      item_ref: input.item_ref as string,
      title: input.item_ref as string,
      price: { amount: 0, currency: '' },
      availability: 'unknown',
    };
    return { merchant, url: url.href, offerId: null, variants: [item], defaultRef: item.item_ref };
  }
  const first = product.variants[0];
  if (!first)
    throw new AppError(422, 'PRODUCT_NOT_FOUND', 'The store has no purchasable variant at this link.');
  return { merchant, url: url.href, offerId: null, variants: product.variants, defaultRef: first.item_ref };
}

export async function createCheckout(
  ctx: CommerceContext,
  actor: CheckoutActor,
  input: CreateCheckoutInput,
): Promise<Checkout> {
  // A checkout by link reads a long-tail store's page for the product, then for the quote and the
  // hand-off: once, shared through `reads`.
  const reads: StorePageReads = new Map();
  const { merchant, url, offerId, variants, defaultRef } = await productFor(ctx, actor, input, reads);
  checkAllowedMerchant(actor.rules, merchant.id);
  const itemRef = input.item_ref ?? defaultRef;
  const variant: Variant | undefined = variants.find((v) => v.item_ref === itemRef);
  if (!variant) throw notAVariant(itemRef, variants);
  const adapter = adapterFor(ctx, merchant, actor.env, reads);
  const id = ctx.ids.make('chk');
  const soldOut = variant.availability === 'out_of_stock';
  const quoteInput: QuoteInput = {
    merchant,
    url,
    checkout_id: id,
    session: null,
    buyer: input.buyer ?? null,
    item_ref: itemRef,
    quantity: input.quantity,
    address: input.shipping_address ?? null,
    reprice_count: 0,
    currency: variant.price.currency || null,
  };
  // A sold-out variant opens no session at a stateful store: the checkout fails at once.
  const quote =
    soldOut && adapter.stateful ? soldOutQuote(variant, input.quantity) : await adapter.quote(quoteInput);
  const now = ctx.clock.now().toISOString();
  const handoff = soldOut ? null : await adapter.handoff?.(quoteInput);
  const draft: CheckoutRecord = {
    id,
    account_id: actor.accountId,
    env: actor.env,
    user_id: actor.userId,
    merchant_id: merchant.id,
    offer_id: offerId,
    product_url: url,
    route: merchant.route,
    status: soldOut ? 'failed' : 'building',
    item_ref: itemRef,
    quantity: input.quantity,
    line_items: quote.line_items,
    totals: quote.totals,
    buyer: input.buyer ?? null,
    shipping_address: input.shipping_address ?? null,
    next_action: null,
    rules: actor.rules,
    requires_user_confirmation: false,
    user_confirmed_at: null,
    confirm_token_hash: null,
    form_token_hash: null,
    task_done_at: null,
    code_done_at: null,
    connection_id: null,
    reprice_count: 0,
    confirmed_at: null,
    order_id: null,
    confirm_key: null,
    error: soldOut
      ? { code: 'OUT_OF_STOCK', message: `${variant.title} is out of stock at ${merchant.name}.` }
      : null,
    store_session: soldOut ? null : (quote.session ?? null),
    merchant_messages: quote.messages,
    created_at: now,
    updated_at: now,
  };
  const saved = await inTransaction(ctx, async (s) =>
    persist(
      s,
      ctx,
      null,
      handoff
        ? // The user finishes in their own browser: the checkout waits there; no order is placed here.
          {
            ...draft,
            status: 'requires_user_action',
            next_action: { type: 'browser', description: handoff.message, url: handoff.url },
          }
        : await settle(s, ctx, draft, merchant, adapter, actor.baseUrl),
    ),
  );
  return toCheckout(saved);
}

/**
 * `baseUrl` (where the hosted pages are, for the links a store's new step may need) is asked for
 * only when the checkout is waiting at its store: working it out from the request is work that a
 * plain read never needs.
 */
export async function getCheckout(
  ctx: CommerceContext,
  owner: Owner,
  id: string,
  baseUrl?: () => string,
): Promise<Checkout> {
  const c = await load(commerceStores(ctx.db), owner, id);
  return toCheckout(waitingAtStore(c) ? await refreshFromStore(ctx, c, baseUrl?.()) : c);
}

const storeRef = (c: CheckoutRecord, merchant: Merchant) => ({
  merchant,
  url: c.product_url,
  checkout_id: c.id,
  session: c.store_session,
});

/** A checkout handed to the buyer at a stateful store (UCP `continue_url`): the store says when it moves on. */
const waitingAtStore = (c: CheckoutRecord) =>
  c.status === 'requires_user_action' && c.store_session?.state === 'action';

/**
 * Asks the store where a hand-off stands (polling; docs/commerce/live.md says why not webhooks)
 * and records what it reports: the order once the buyer paid there, a cancellation, or the
 * session as it now is. A store that cannot be asked leaves the checkout as it is.
 */
export async function refreshFromStore(
  ctx: CommerceContext,
  c: CheckoutRecord,
  baseUrl = configuredBaseUrl(ctx.config),
): Promise<CheckoutRecord> {
  const merchant = await getMerchant(commerceStores(ctx.db), c.env, c.merchant_id);
  const adapter = adapterFor(ctx, merchant, c.env);
  if (!adapter.refresh) return c;
  let seen: Awaited<ReturnType<NonNullable<typeof adapter.refresh>>>;
  try {
    seen = await adapter.refresh(storeRef(c, merchant));
  } catch (err) {
    ctx.logger.warn({ err, checkout: c.id }, 'could not ask the store about a hand-off');
    return c;
  }
  const { session, quote, order_ref } = seen;
  return inTransaction(ctx, async (s) => {
    const before = await load(s, ownerOf(c), c.id);
    if (!waitingAtStore(before)) return before;
    const messages = quote?.messages ?? [];
    if (order_ref) {
      const priced = quote ? { ...before, line_items: quote.line_items, totals: quote.totals } : before;
      await saveChecked(s, { ...priced, updated_at: before.updated_at });
      return recordPlacement(s, ctx, c.id, ownerOf(c), {
        ok: true,
        merchant_order_ref: order_ref,
        messages: [...messages, `The buyer finished at ${merchant.name}: order ${order_ref}.`],
      });
    }
    if (session.state === 'canceled') {
      return persist(s, ctx, before, {
        ...before,
        status: 'canceled',
        next_action: null,
        store_session: session,
        merchant_messages: withMessages(before, messages),
      });
    }
    if (session.state === 'action' && JSON.stringify(session) === JSON.stringify(before.store_session)) {
      return before;
    }
    const after: CheckoutRecord = {
      ...before,
      store_session: session,
      ...(quote ? { line_items: quote.line_items, totals: quote.totals } : {}),
      merchant_messages: withMessages(before, messages),
    };
    if (before.confirmed_at) {
      // Handed over by a complete: the store places the order or asks again; nothing to re-check here.
      return persist(s, ctx, before, {
        ...after,
        status: session.state === 'action' ? 'requires_user_action' : 'confirming',
        next_action: session.state === 'action' ? session.action : null,
      });
    }
    return persist(s, ctx, before, await settle(s, ctx, after, merchant, adapter, baseUrl));
  });
}

/**
 * Polls the stores of checkouts handed to the buyer; called periodically by the service. Once
 * `stopped` says so (a stop has begun) it asks about no further checkout: the rest wait for the next poll.
 */
export async function pollStoreHandOffs(
  ctx: CommerceContext,
  opts: { stopped?: () => boolean } = {},
): Promise<number> {
  let moved = 0;
  for (const c of await commerceStores(ctx.db).checkouts.listWaitingAtStore(50)) {
    if (opts.stopped?.()) break;
    if (inProgress.has(c.id)) continue;
    // Another instance may be placing or polling it: that one asks the store, not this one.
    const after = await underPlacementLease(ctx, c.id, () => refreshFromStore(ctx, c));
    if (after && after.status !== c.status) moved++;
  }
  return moved;
}

export async function updateCheckout(
  ctx: CommerceContext,
  actor: CheckoutActor,
  id: string,
  input: { buyer?: Buyer | undefined; shipping_address?: ShippingAddress | undefined },
): Promise<Checkout> {
  const current = await load(commerceStores(ctx.db), actor, id);
  const merchant = await getMerchant(commerceStores(ctx.db), actor.env, current.merchant_id);
  if (merchant.tier === 'major') {
    throw new AppError(
      422,
      'UPDATE_NOT_SUPPORTED',
      `${merchant.name} is a major retailer: its cart is built on the user's device, so a checkout cannot be re-priced. Cancel it and create a new one.`,
    );
  }
  if (!OPEN.has(current.status) || current.confirmed_at) {
    throw stateError(current, 'update', 'an open checkout not yet handed to the store');
  }
  const adapter = adapterFor(ctx, requireUsable(actor.env, merchant), actor.env);
  if (adapter.handoff) {
    throw new AppError(
      422,
      'UPDATE_NOT_SUPPORTED',
      `This checkout was handed to the user's browser: ${merchant.name} takes the address and payment on its own checkout page, so this API cannot re-price it. Cancel it and create a new one for a different item or quantity.`,
    );
  }
  const address = input.shipping_address ?? current.shipping_address;
  const quote = await adapter.quote({
    merchant,
    url: current.product_url,
    checkout_id: current.id,
    session: current.store_session,
    buyer: input.buyer ?? current.buyer,
    item_ref: current.item_ref,
    quantity: current.quantity,
    address,
    reprice_count: current.reprice_count + 1,
  });
  const saved = await inTransaction(ctx, async (s) => {
    const before = await load(s, actor, id);
    if (!OPEN.has(before.status)) throw stateError(before, 'update', 'an open checkout');
    const totalChanged =
      before.totals.total.amount !== quote.totals.total.amount ||
      before.totals.total.currency !== quote.totals.total.currency;
    const after: CheckoutRecord = {
      ...before,
      buyer: input.buyer ?? before.buyer,
      shipping_address: address,
      line_items: quote.line_items,
      totals: quote.totals,
      reprice_count: before.reprice_count + 1,
      store_session: quote.session ?? before.store_session,
      merchant_messages: withMessages(before, quote.messages),
      // The user confirmed an amount, not a checkout: a new total needs a new confirmation. A
      // checkout still waiting for it gets a new confirm link: the server cannot show the old one
      // again (it keeps only its hash), so an update is how an app that lost it gets another.
      ...(totalChanged || before.next_action?.type === 'user_confirmation'
        ? { user_confirmed_at: null, confirm_token_hash: null, next_action: null }
        : {}),
      // The same for the pay link: a new one, and the old one stops working.
      ...(before.next_action?.type === 'card_payment'
        ? { confirm_token_hash: null, form_token_hash: null, next_action: null }
        : {}),
    };
    return persist(s, ctx, before, await settle(s, ctx, after, merchant, adapter, actor.baseUrl));
  });
  return toCheckout(saved);
}

/**
 * The Idempotency-Key a confirm ran under, kept on the checkout: whoever makes the confirm final
 * (the request, a retry, crash recovery) answers that key in the same transaction.
 */
interface ConfirmKey {
  scope: string;
  key: string;
  status: number;
}

const confirmKeyOf = (c: CheckoutRecord): ConfirmKey | null =>
  c.confirm_key === null ? null : (JSON.parse(c.confirm_key) as ConfirmKey);

/** Stores the checkout as the answer to the confirm's key, in the caller's transaction. */
async function answerConfirm(s: CommerceStores, c: CheckoutRecord): Promise<void> {
  const k = confirmKeyOf(c);
  if (k) await s.idempotency.complete(k.scope, k.key, { status: k.status, body: toCheckout(c), headers: {} });
}

/**
 * Confirms and placements running in this process, by checkout id. A retry of a confirm still
 * running here waits for it rather than racing it. Across instances the placement lease decides.
 */
const inProgress = new Map<string, Promise<unknown>>();

/**
 * While a checkout's order is being placed (or its store asked where it stands) the instance
 * doing it holds this lease in the database, so crash recovery and hand-off polling on every
 * instance leave it alone. A placement whose instance died is taken over by recovery (on any
 * instance) once the lease runs out, or at once by a restart on the same machine and in the same
 * pid namespace, where "that process is gone" is certain (`isGoneHere`; a holder in another
 * container, with its own pids, is always waited out). Either way recovery first reads the
 * store's checkout: an order the holder placed is adopted, and only a checkout still open there
 * is sent `complete` again, under the same Idempotency-Key, which UCP requires stores to honour.
 */
export const PLACEMENT_LEASE_MS = 2 * 60_000;
export const placementLease = (id: string) => `checkout-placement:${id}`;
/** Takes the placement lease: from nobody, from a holder whose lease ran out, or from one gone here. */
const takePlacement = (leases: CommerceStores['leases'], ctx: CommerceContext, id: string) =>
  leases.take(placementLease(id), ctx.instanceId, PLACEMENT_LEASE_MS, ctx.db.dialect);
const releasePlacement = (ctx: CommerceContext, id: string) =>
  commerceStores(ctx.db).leases.release(placementLease(id), ctx.instanceId);

/** Runs `work` holding the checkout's placement lease; null when someone else holds it. */
async function underPlacementLease<T>(
  ctx: CommerceContext,
  id: string,
  work: () => Promise<T>,
): Promise<T | null> {
  if (!(await takePlacement(commerceStores(ctx.db).leases, ctx, id))) return null;
  return tracked(id, work).finally(() => releasePlacement(ctx, id));
}

function tracked<T>(id: string, work: () => Promise<T>): Promise<T> {
  // `work` runs up to its first await here, so the entry exists before anything it commits.
  const p = work();
  if (!inProgress.has(id)) {
    inProgress.set(id, p);
    const done = () => {
      if (inProgress.get(id) === p) inProgress.delete(id);
    };
    p.then(done, done);
  }
  return p;
}

/**
 * The transactions that check the spending limits and move a checkout to `confirming`.
 * `max_per_day` sums the user's orders and confirming checkouts, then writes another checkout:
 * at PostgreSQL's default READ COMMITTED two such transactions (two instances) would each miss
 * the other's and both fit under the limit. SERIALIZABLE makes one of them run again, and it then
 * sees the other. It also makes a confirm that lost a race to another confirm of the same checkout
 * run again and see it `confirming`, so both engines answer 409 CHECKOUT_STATE_INVALID (SQLite's
 * writers are serial anyway), never CHECKOUT_CHANGED.
 */
const SPENDING_CHECKED: TransactionOptions = { isolation: 'serializable' };

/** `request`: the Idempotency-Key the confirm was sent with, if any (see `IdempotentRequest`). */
export async function confirmCheckout(
  ctx: CommerceContext,
  actor: CheckoutActor,
  id: string,
  request?: IdempotentRequest,
): Promise<Checkout> {
  const confirmKey: ConfirmKey | null = request
    ? { scope: request.scope, key: request.key, status: request.responseFor(null).status }
    : null;
  // Taken before this confirm registers itself below.
  const earlier = inProgress.get(id);
  return toCheckout(
    await tracked(id, async () => {
      const step = await inTransaction(
        ctx,
        async (s) => {
          // The key's claim commits with the move to `confirming` (or rolls back with it): a key
          // that already has a record leaves here (KeyTaken) for the wrapper to decide.
          await request?.claimIn(s.idempotency.insert);
          const before = await load(s, actor, id);
          if (before.status !== 'ready_to_confirm') {
            // The same key again after a crash lost the first answer: its outcome, not a 409.
            const first = confirmKeyOf(before);
            if (confirmKey && first?.scope === confirmKey.scope && first.key === confirmKey.key) {
              return { retried: true as const, checkout: before };
            }
            throw stateError(before, 'confirm', 'ready_to_confirm');
          }
          // settle() never lets a checkout reach ready_to_confirm while the user's confirmation is missing.
          const merchant = requireUsable(actor.env, await getMerchant(s, actor.env, before.merchant_id));
          const now = ctx.clock.now();
          await checkSpendingLimits(s, before, now);
          const after: CheckoutRecord = {
            ...before,
            status: 'confirming',
            confirmed_at: now.toISOString(),
            confirm_key: confirmKey && JSON.stringify(confirmKey),
          };
          const saved = await persist(s, ctx, before, after);
          // Device and browser routes place the order on the user's side; the store reports back
          // later. For the request, this write is final.
          if (saved.route !== 'ucp') await answerConfirm(s, saved);
          // Taken with the move to `confirming`, so no instance's recovery sees it unheld.
          else await takePlacement(s.leases, ctx, id);
          return { retried: false as const, checkout: saved, merchant };
        },
        SPENDING_CHECKED,
      );
      if (step.retried) return resumeConfirm(ctx, step.checkout, earlier);
      const done =
        step.checkout.route !== 'ucp'
          ? step.checkout
          : await place(ctx, step.checkout, step.merchant).finally(() => releasePlacement(ctx, id));
      // The key's answer is committed with the outcome: by the transaction above on the device
      // and browser routes, by recordPlacement's on a UCP store (or by whoever finished it first).
      request?.answered();
      return done;
    }),
  );
}

/** A checkout whose store takes a card, waiting for the buyer on the hosted pay page. */
export const awaitingCard = (c: CheckoutRecord | undefined): c is CheckoutRecord =>
  c?.status === 'requires_user_action' &&
  c.next_action?.type === 'card_payment' &&
  c.store_session?.payment === 'card';

export type CardPaymentOutcome =
  | { state: 'done' }
  | { state: 'stale_form' }
  | { state: 'paid'; checkout: Checkout; merchant: Merchant };

/**
 * The hosted pay page's form: the buyer's browser sent their card to the store's tokenizer and
 * brings back its token. Paying is the user's confirmation, so the spending rules are checked here,
 * in the same transaction that moves the checkout to `confirming`; then the complete goes to the
 * store with the token, held in memory for that one call and never written anywhere. A store that
 * does not answer leaves the checkout `confirming`, and recovery asks the store where it stands
 * (the token cannot be sent again).
 */
export async function payByCard(
  ctx: CommerceContext,
  input: {
    token: string;
    formToken: string;
    paymentToken: string;
    card?: { brand: string; last_digits: string };
  },
): Promise<CardPaymentOutcome> {
  const step = await inTransaction(
    ctx,
    async (s) => {
      const before = await s.checkouts.findByConfirmToken(tokenHash(input.token));
      if (!awaitingCard(before)) return { state: 'done' as const };
      if (!before.form_token_hash || before.form_token_hash !== tokenHash(input.formToken)) {
        return { state: 'stale_form' as const };
      }
      const merchant = requireUsable(before.env, await getMerchant(s, before.env, before.merchant_id));
      const now = ctx.clock.now();
      await checkSpendingLimits(s, before, now);
      const saved = await persist(s, ctx, before, {
        ...before,
        status: 'confirming',
        next_action: null,
        confirm_token_hash: null,
        form_token_hash: null,
        confirmed_at: now.toISOString(),
      });
      // As in confirm: held from the move to `confirming`, so no instance's recovery reads the
      // store beside the complete this request is about to send.
      await takePlacement(s.leases, ctx, saved.id);
      return { state: 'placing' as const, checkout: saved, merchant };
    },
    SPENDING_CHECKED,
  );
  if (step.state !== 'placing') return step;
  const { checkout, merchant } = step;
  let after: CheckoutRecord;
  try {
    after = await tracked(checkout.id, () =>
      place(ctx, checkout, merchant, {
        paymentToken: input.paymentToken,
        ...(input.card ? { card: input.card } : {}),
      }).finally(() => releasePlacement(ctx, checkout.id)),
    );
  } catch (err) {
    if (!(err instanceof StoreUnavailable)) throw err;
    // No answer from the store: the checkout stays confirming and the page says so.
    after = await load(commerceStores(ctx.db), ownerOf(checkout), checkout.id);
  }
  return { state: 'paid', checkout: toCheckout(after), merchant };
}

/** A retried confirm: the outcome if there is one, else the placement's, learnt from the store. */
async function resumeConfirm(
  ctx: CommerceContext,
  c: CheckoutRecord,
  earlier: Promise<unknown> | undefined,
): Promise<CheckoutRecord> {
  if (c.status !== 'confirming' || c.route !== 'ucp') return c;
  // The first request still runs in this process, but its key's lock ran out (a very slow
  // store) or recovery is finishing it: wait for it rather than ask the store mid-placement.
  if (earlier) {
    await earlier.catch(() => undefined);
    return load(commerceStores(ctx.db), ownerOf(c), c.id);
  }
  // Still being placed on another instance: answer where it stands; it moves on from there.
  return (await underPlacementLease(ctx, c.id, () => finishFromStore(ctx, c))) ?? c;
}

/** Asks the store to place the order, then records the outcome. No transaction is held meanwhile. */
async function place(
  ctx: CommerceContext,
  c: CheckoutRecord,
  merchant: Merchant,
  opts: { retry?: boolean; paymentToken?: string; card?: { brand: string; last_digits: string } } = {},
): Promise<CheckoutRecord> {
  const adapter = adapterFor(ctx, merchant, c.env);
  let result: PlaceResult;
  try {
    result = await adapter.placeOrder({
      merchant,
      url: c.product_url,
      checkout_id: c.id,
      session: c.store_session,
      buyer: c.buyer,
      item_ref: c.item_ref,
      quantity: c.quantity,
      address: c.shipping_address,
      reprice_count: c.reprice_count,
      ...(opts.paymentToken ? { payment_token: opts.paymentToken } : {}),
      ...(opts.card ? { payment_card: opts.card } : {}),
    });
  } catch (err) {
    // Only "the store did not answer" leaves the checkout confirming (a retry or recovery asks
    // again). A definite answer (a refusal, a store we will not speak to) ends it here: recovery
    // never re-sends a request the store refused.
    if (!(err instanceof AppError) || err instanceof StoreUnavailable || err.status >= 500) throw err;
    result = { ok: false, error: { code: err.code, message: err.message }, messages: [] };
  }
  if (opts.retry && result.ok === 'waiting' && !result.action) {
    // A retried placement may be answered with the first answer ("in progress"): ask where it is now.
    const now = await adapter.orderStatus({ ...storeRef(c, merchant), session: result.session });
    if (now.state === 'placed') {
      result = {
        ok: true,
        merchant_order_ref: now.merchant_order_ref,
        messages: [...result.messages, `${merchant.name} reports order ${now.merchant_order_ref}.`],
      };
    }
  }
  const final = result;
  return inTransaction(ctx, (s) => recordPlacement(s, ctx, c.id, ownerOf(c), final));
}

/**
 * A checkout left in `confirming` by a request that never finished (the process died during the
 * store call): asks the store whether it placed the order and finishes the checkout either way.
 * An `unknown` answer leaves it in `confirming` for the next attempt.
 */
async function finishFromStore(ctx: CommerceContext, c: CheckoutRecord): Promise<CheckoutRecord> {
  const merchant = await getMerchant(commerceStores(ctx.db), c.env, c.merchant_id);
  const adapter = adapterFor(ctx, merchant, c.env);
  const status = await adapter.orderStatus({
    merchant,
    url: c.product_url,
    checkout_id: c.id,
    session: c.store_session,
  });
  // The store's checkout is read first: an order the interrupted placement got placed is adopted
  // as it stands, whether or not the store honours Idempotency-Key on a second complete. Only a
  // stateful store whose checkout is still open is asked again, with the same Idempotency-Key.
  if (adapter.stateful && status.state === 'unknown') return place(ctx, c, merchant, { retry: true });
  if (status.state === 'unknown') {
    ctx.logger.warn(
      { checkout: c.id, reason: status.reason },
      'store could not say whether it placed the order',
    );
    return c;
  }
  const result: PlaceResult =
    status.state === 'placed'
      ? {
          ok: true,
          merchant_order_ref: status.merchant_order_ref,
          messages: [
            `The store confirmed order ${status.merchant_order_ref} after the confirm was interrupted.`,
          ],
        }
      : {
          ok: false,
          error: {
            code: 'ORDER_NOT_PLACED',
            message:
              'The confirm was interrupted (the server stopped) before the store placed the order, and the store has no order for this checkout. Nothing was charged; create a new checkout to try again.',
          },
          messages: [],
        };
  return inTransaction(ctx, (s) => recordPlacement(s, ctx, c.id, ownerOf(c), result));
}

/**
 * Crash recovery: finishes every `ucp` checkout handed to the store at or before `before` whose
 * placement nobody holds (not this process, no other instance): a placement lease that ran out
 * means its instance died. Called at start-up and then periodically, on every instance. Once
 * `stopped` says so (a stop has begun) it takes no further checkout: each one left is untouched,
 * still `confirming` with no lease, for the next recovery on any instance.
 */
export async function recoverConfirming(
  ctx: CommerceContext,
  before: Date,
  opts: { stopped?: () => boolean } = {},
): Promise<number> {
  let finished = 0;
  const stuck = await commerceStores(ctx.db).checkouts.listConfirming('ucp', before.toISOString(), 100);
  for (const c of stuck) {
    if (opts.stopped?.()) break;
    if (inProgress.has(c.id)) continue;
    try {
      const after = await underPlacementLease(ctx, c.id, () => finishFromStore(ctx, c));
      if (after && after.status !== 'confirming') finished++;
    } catch (err) {
      ctx.logger.error({ err, checkout: c.id }, 'could not recover a checkout stuck in confirming');
    }
  }
  return finished;
}

async function recordPlacement(
  s: CommerceStores,
  ctx: CommerceContext,
  id: string,
  owner: Owner,
  result: PlaceResult,
): Promise<CheckoutRecord> {
  const before = await load(s, owner, id);
  if (before.status !== 'confirming' && !waitingAtStore(before)) return before;
  const now = ctx.clock.now().toISOString();
  const messages = withMessages(before, result.messages);
  if (result.ok === 'waiting') {
    // The store took the complete but the buyer must act there first (or it is still placing).
    const waiting = await persist(s, ctx, before, {
      ...before,
      status: result.action ? 'requires_user_action' : 'confirming',
      next_action: result.action,
      store_session: result.session,
      merchant_messages: messages,
    });
    await answerConfirm(s, waiting);
    return waiting;
  }
  if (!result.ok) {
    const failed = await persist(s, ctx, before, {
      ...before,
      status: 'failed',
      error: result.error,
      merchant_messages: messages,
    });
    await answerConfirm(s, failed);
    return failed;
  }
  const order = {
    id: ctx.ids.make('ord'),
    account_id: before.account_id,
    env: before.env,
    user_id: before.user_id,
    checkout_id: before.id,
    merchant_id: before.merchant_id,
    status: 'placed' as const,
    line_items: before.line_items,
    totals: before.totals,
    shipping_address: before.shipping_address as ShippingAddress,
    merchant_order_ref: result.merchant_order_ref,
    created_at: now,
    updated_at: now,
  };
  await s.orders.insert(order);
  const completed = await persist(
    s,
    ctx,
    before,
    {
      ...before,
      status: 'completed',
      next_action: null,
      order_id: order.id,
      merchant_messages: messages,
    },
    [{ type: 'order.updated', data: toOrder(order) }],
  );
  await answerConfirm(s, completed);
  return completed;
}

export async function submitUserInput(
  ctx: CommerceContext,
  actor: CheckoutActor,
  id: string,
  fields: Record<string, string>,
): Promise<Checkout> {
  const current = await load(commerceStores(ctx.db), actor, id);
  const asked =
    current.status === 'requires_user_action' && current.next_action?.type === 'one_time_code'
      ? (current.next_action.fields ?? []).map((f) => f.name)
      : null;
  if (!asked) {
    throw stateError(current, 'user_input', "requires_user_action with next_action.type 'one_time_code'");
  }
  const unknown = Object.keys(fields).filter((k) => !asked.includes(k));
  if (unknown.length > 0) {
    throw invalidRequest(
      `Unknown field 'fields.${unknown[0]}': next_action.fields asks for ${asked.map((a) => `'${a}'`).join(', ')}.`,
      `fields.${unknown[0]}`,
    );
  }
  const missing = asked.find((a) => !(a in fields));
  if (missing) throw invalidRequest(`'fields.${missing}' is required.`, `fields.${missing}`);
  const merchant = await getMerchant(commerceStores(ctx.db), actor.env, current.merchant_id);
  const adapter = adapterFor(ctx, merchant, actor.env);
  const verdict = adapter.verify(fields);
  if (!verdict.ok) throw new AppError(422, 'USER_INPUT_REJECTED', verdict.message, { param: 'fields' });
  const saved = await inTransaction(ctx, async (s) => {
    const before = await load(s, actor, id);
    if (before.next_action?.type !== 'one_time_code' || before.status !== 'requires_user_action') {
      throw stateError(before, 'user_input', "requires_user_action with next_action.type 'one_time_code'");
    }
    const after = { ...before, code_done_at: ctx.clock.now().toISOString() };
    return persist(s, ctx, before, await settle(s, ctx, after, merchant, adapter, actor.baseUrl));
  });
  return toCheckout(saved);
}

export async function cancelCheckout(
  ctx: CommerceContext,
  actor: CheckoutActor,
  id: string,
): Promise<Checkout> {
  const current = await load(commerceStores(ctx.db), actor, id);
  if (OPEN.has(current.status) && current.store_session) {
    // The store's session goes first: if the store cannot be told, nothing changes here.
    const merchant = await getMerchant(commerceStores(ctx.db), actor.env, current.merchant_id);
    await adapterFor(ctx, merchant, actor.env).cancel?.(storeRef(current, merchant));
  }
  const saved = await inTransaction(ctx, async (s) => {
    const before = await load(s, actor, id);
    if (!OPEN.has(before.status)) {
      throw stateError(
        before,
        'cancel',
        'an open checkout (building, requires_user_action or ready_to_confirm)',
      );
    }
    return persist(s, ctx, before, {
      ...before,
      status: 'canceled',
      next_action: null,
      confirm_token_hash: null,
    });
  });
  return toCheckout(saved);
}

/** Sandbox: the user's device or browser finishes the step in `next_action`. */
export async function completeAction(
  ctx: CommerceContext,
  actor: CheckoutActor,
  id: string,
): Promise<Checkout> {
  return advanceWaiting(ctx, actor, id, ['device_session', 'browser'], (c) => ({
    ...c,
    task_done_at: ctx.clock.now().toISOString(),
  }));
}

/** Sandbox: the user confirms the total, as they would on the hosted confirm page. */
export async function userConfirm(ctx: CommerceContext, actor: CheckoutActor, id: string): Promise<Checkout> {
  return advanceWaiting(ctx, actor, id, ['user_confirmation'], (c) => ({
    ...c,
    user_confirmed_at: ctx.clock.now().toISOString(),
    confirm_token_hash: null,
    form_token_hash: null,
  }));
}

async function advanceWaiting(
  ctx: CommerceContext,
  actor: Actor,
  id: string,
  types: string[],
  change: (c: CheckoutRecord) => CheckoutRecord,
): Promise<Checkout> {
  const saved = await inTransaction(ctx, async (s) => {
    const before = await load(s, actor, id);
    if (before.status !== 'requires_user_action' || !types.includes(before.next_action?.type ?? '')) {
      throw stateError(
        before,
        'this step',
        `requires_user_action with next_action.type ${types.map((t) => `'${t}'`).join(' or ')}`,
      );
    }
    const merchant = await getMerchant(s, actor.env, before.merchant_id);
    const adapter = adapterFor(ctx, merchant, actor.env);
    return persist(s, ctx, before, await settle(s, ctx, change(before), merchant, adapter, actor.baseUrl));
  });
  return toCheckout(saved);
}

/** Sandbox: the store finishes placing an order that waits in `confirming`. */
export async function merchantComplete(
  ctx: CommerceContext,
  actor: CheckoutActor,
  id: string,
): Promise<Checkout> {
  const current = await load(commerceStores(ctx.db), actor, id);
  if (current.status !== 'confirming') throw stateError(current, 'merchant_complete', 'confirming');
  const merchant = await getMerchant(commerceStores(ctx.db), actor.env, current.merchant_id);
  const placed = await underPlacementLease(ctx, id, () => place(ctx, current, merchant));
  return toCheckout(placed ?? (await load(commerceStores(ctx.db), actor, id)));
}

/**
 * A connection changed: checkouts waiting on it move on (or back) in the same transaction.
 */
export async function changeConnection(
  s: CommerceStores,
  ctx: CommerceContext,
  owner: Owner,
  merchantId: string,
  status: ConnectionStatus,
  baseUrl: string,
) {
  const { connection, changed } = await setConnection(s, ctx, owner, merchantId, status);
  if (changed && status === 'active') {
    const merchant = await getMerchant(s, owner.env, merchantId);
    const adapter = adapterFor(ctx, merchant, owner.env);
    for (const before of await s.checkouts.listWaitingOnConnection(connection.id)) {
      const after = await settle(s, ctx, before, merchant, adapter, baseUrl);
      await persist(s, ctx, before, after);
    }
  }
  return connection;
}

export async function setConnectionStatus(
  ctx: CommerceContext,
  actor: Actor,
  merchantId: string,
  status: ConnectionStatus,
) {
  const merchant = await getMerchant(commerceStores(ctx.db), actor.env, merchantId);
  return inTransaction(ctx, (s) => changeConnection(s, ctx, actor, merchant.id, status, actor.baseUrl));
}

export { inTransaction };
