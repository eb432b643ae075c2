import { AppError } from '../../platform/errors.js';
import type { CommerceContext } from '../context.js';
import type { CheckoutRecord } from '../db/checkouts-store.js';
import type { CommerceStores } from '../db/stores.js';
import type { StoreAdapter } from '../merchants/adapter.js';
import type { CheckoutStatus } from '../schemas/common.js';
import type { Merchant, NextAction } from '../schemas/resources.js';
import { type Owner, setConnection } from './connections.js';
import { type PendingEvent, writeEvents } from './events.js';
import { usableHere } from './passkeys.js';
import { needsUserConfirmation } from './rules.js';
import { toCheckout } from './serialize.js';
import { newToken } from './tokens.js';

/** A checkout the application can still change, cancel or confirm. */
export const OPEN: ReadonlySet<CheckoutStatus> = new Set([
  'building',
  'requires_user_action',
  'ready_to_confirm',
]);

export const ownerOf = (c: CheckoutRecord): Owner => ({
  accountId: c.account_id,
  env: c.env,
  userId: c.user_id,
});

export function stateError(c: CheckoutRecord, operation: string, needs: string): AppError {
  return new AppError(
    409,
    'CHECKOUT_STATE_INVALID',
    `This checkout is ${c.status}; ${operation} needs ${needs}.`,
  );
}

/**
 * The gates an open checkout passes on its way to `ready_to_confirm`, in order: buyer and
 * address, the store connection, the route's own step (device or browser), a stateful store's
 * own verdict (its session must be ready; a hand-off to the buyer waits), the store's one-time
 * code, and the user's confirmation of a large total (on the store's total). The first gate not yet passed
 * decides the status and the `next_action`. Called after every change to an open checkout.
 */
export async function settle(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock' | 'ids'>,
  c: CheckoutRecord,
  merchant: Merchant,
  adapter: StoreAdapter,
  baseUrl: string,
): Promise<CheckoutRecord> {
  if (!OPEN.has(c.status)) return c;
  const waitFor = (next_action: NextAction): CheckoutRecord => ({
    ...c,
    status: 'requires_user_action',
    next_action,
  });
  c = { ...c, requires_user_confirmation: needsUserConfirmation(c.rules, c.totals.total) };

  if (!c.shipping_address || !c.buyer?.email) return { ...c, status: 'building', next_action: null };

  if (merchant.requires_connection) {
    const existing = await s.connections.find(c.user_id, merchant.id);
    const connection =
      existing?.status === 'active'
        ? existing
        : (await setConnection(s, ctx, ownerOf(c), merchant.id, 'needs_user')).connection;
    c = { ...c, connection_id: connection.id };
    if (connection.status !== 'active') {
      return waitFor({
        type: 'connect_store',
        description: `The user must connect their ${merchant.name} account before this store takes orders.`,
        connection_id: connection.id,
      });
    }
  }

  if (c.route === 'device_session' && !c.task_done_at) {
    return waitFor({
      type: 'device_session',
      description: `The user's device must open ${merchant.name} to build the cart and read the live price. Hand task_id to the device.`,
      task_id: `task_${c.id.replace(/^chk_/, '')}`,
    });
  }
  if (c.route === 'browser' && !c.task_done_at) {
    return waitFor({
      type: 'browser',
      description: `The user must open this page in their browser once so ${merchant.name} can check them.`,
      url: `https://${merchant.domain}/checkout/session/${c.id.replace(/^chk_/, '')}`,
    });
  }

  // A stateful store (UCP) has the last word on whether it takes the order as it stands.
  const session = c.store_session;
  if (session?.state === 'action' && session.action) return waitFor(session.action);
  if (session?.state === 'stalled') {
    // The store will not move on and gives the buyer no page to finish on: say so, never wait silently.
    return {
      ...c,
      status: 'failed',
      next_action: null,
      confirm_token_hash: null,
      error: session.problem ?? {
        code: 'MERCHANT_CHECKOUT_STALLED',
        message: `${merchant.name} does not move this checkout on, and offers no page for the buyer.`,
      },
    };
  }
  if (session && session.state !== 'ready') return { ...c, status: 'building', next_action: null };

  const fields = adapter.challenge(merchant, c.product_url);
  if (fields && !c.code_done_at) {
    return waitFor({
      type: 'one_time_code',
      description: `${merchant.name} sent the user a one-time code. Send it with POST /v1/checkouts/${c.id}/user_input.`,
      fields,
    });
  }

  if (c.requires_user_confirmation && !c.user_confirmed_at) {
    const description = await confirmationStep(s, c, baseUrl);
    const current =
      c.next_action?.type === 'user_confirmation' && c.confirm_token_hash ? c.next_action : null;
    if (current) return waitFor({ ...current, description });
    const { token, hash } = newToken('confirm', c.env);
    c = { ...c, confirm_token_hash: hash };
    return waitFor({
      type: 'user_confirmation',
      description,
      url: `${baseUrl}/hosted/confirm?token=${encodeURIComponent(token)}`,
    });
  }

  if (session?.payment === 'card') {
    // The buyer's card is the last step, and paying is the confirmation: the hosted page's script
    // sends the card to the store's tokenizer, and its form brings back the token that places the order.
    const current = c.next_action?.type === 'card_payment' && c.confirm_token_hash ? c.next_action : null;
    if (current) return waitFor(current);
    const { token, hash } = newToken('confirm', c.env);
    c = { ...c, confirm_token_hash: hash };
    return waitFor({
      type: 'card_payment',
      description: `${merchant.name} takes a card: the user pays on this page, where their card goes from their browser straight to the store's payment tokenizer, never through this API. Paying places the order. The link (next_action.url) is given once, in this answer and its checkout.requires_user_action event; POST /v1/checkouts/${c.id}/update gives a new one.`,
      url: `${baseUrl}/hosted/pay?token=${encodeURIComponent(token)}`,
    });
  }

  return { ...c, status: 'ready_to_confirm', next_action: null, confirm_token_hash: null };
}

/**
 * What the app is told to do for a total above `confirm_above`. In live mode the page needs the
 * user's passkey; a user without one is told so here, with the way to make one, rather than
 * meeting a refusal on the page.
 */
async function confirmationStep(s: CommerceStores, c: CheckoutRecord, baseUrl: string): Promise<string> {
  const above = 'The total is above what the user pre-approved: they must confirm it themselves on this page';
  const link = ` The page's link (next_action.url) is given once, in the answer that asked for this confirmation and in its checkout.requires_user_action event: the server keeps only a hash of its token. If it is lost, POST /v1/checkouts/${c.id}/update gives a new one (the old one stops working).`;
  if (c.env !== 'live') return `${above}.${link}`;
  if (usableHere(await s.passkeys.forUser(c.user_id), baseUrl).length)
    return `${above}, with their passkey.${link}`;
  return `${above}, with a passkey, and they have not created one. Send them through the hosted approval flow again (POST /v1/approval_tokens with the same client_user_id), where they create a passkey on their device; then they confirm on this page.${link}`;
}

const actionKey = (c: CheckoutRecord | null) =>
  c?.status === 'requires_user_action' && c.next_action
    ? `${c.next_action.type}:${c.next_action.task_id ?? c.next_action.connection_id ?? c.next_action.url ?? ''}`
    : null;

/**
 * Writes the whole checkout on the version it was read with, or 409 CHECKOUT_CHANGED when
 * another request (or instance) wrote it since: the caller's decision was made on a state that
 * is gone, so nothing is written. Returns the record at its new version.
 */
export async function saveChecked(s: CommerceStores, c: CheckoutRecord): Promise<CheckoutRecord> {
  if (!(await s.checkouts.save(c)))
    throw new AppError(
      409,
      'CHECKOUT_CHANGED',
      `Checkout ${c.id} changed while this request ran; fetch it (GET /v1/checkouts/${c.id}) and try again.`,
    );
  return { ...c, version: (c.version ?? 0) + 1 };
}

/**
 * Writes the checkout and its events in the caller's transaction: `checkout.updated` for any
 * change, plus the specific event for entering `requires_user_action`, `completed` or `failed`.
 */
export async function persist(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock' | 'ids'>,
  before: CheckoutRecord | null,
  after: CheckoutRecord,
  extra: PendingEvent[] = [],
): Promise<CheckoutRecord> {
  const stamped = { ...after, updated_at: ctx.clock.now().toISOString() };
  const saved = before ? await saveChecked(s, { ...stamped, version: before.version }) : stamped;
  if (!before) await s.checkouts.insert(saved);
  const data = toCheckout(saved);
  const events: PendingEvent[] = [{ type: 'checkout.updated', data }];
  const key = actionKey(saved);
  if (key && key !== actionKey(before)) events.push({ type: 'checkout.requires_user_action', data });
  if (saved.status === 'completed' && before?.status !== 'completed')
    events.push({ type: 'checkout.completed', data });
  if (saved.status === 'failed' && before?.status !== 'failed')
    events.push({ type: 'checkout.failed', data });
  await writeEvents(s, ctx, ownerOf(saved), [...events, ...extra]);
  return saved;
}
