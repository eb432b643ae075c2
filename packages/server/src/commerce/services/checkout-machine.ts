import { AppError } from '../../platform/errors.js';
import type { CommerceContext } from '../context.js';
import type { CheckoutRecord } from '../db/checkouts-store.js';
import type { CommerceStores } from '../db/stores.js';
import type { StoreAdapter } from '../merchants/adapter.js';
import type { CheckoutStatus } from '../schemas/common.js';
import type { Merchant, NextAction } from '../schemas/resources.js';
import { type Owner, setConnection } from './connections.js';
import { type PendingEvent, writeEvents } from './events.js';
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
    const current =
      c.next_action?.type === 'user_confirmation' && c.confirm_token_hash ? c.next_action : null;
    if (current) return waitFor(current);
    const { token, hash } = newToken('confirm', c.env);
    c = { ...c, confirm_token_hash: hash };
    return waitFor({
      type: 'user_confirmation',
      description:
        'The total is above what the user pre-approved: they must confirm it themselves on this page.',
      url: `${baseUrl}/hosted/confirm?token=${encodeURIComponent(token)}`,
    });
  }

  return { ...c, status: 'ready_to_confirm', next_action: null, confirm_token_hash: null };
}

const actionKey = (c: CheckoutRecord | null) =>
  c?.status === 'requires_user_action' && c.next_action
    ? `${c.next_action.type}:${c.next_action.task_id ?? c.next_action.connection_id ?? c.next_action.url ?? ''}`
    : null;

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
  const saved = { ...after, updated_at: ctx.clock.now().toISOString() };
  if (before) await s.checkouts.save(saved);
  else await s.checkouts.insert(saved);
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
