import { AppError } from '../../platform/errors.js';
import type { CommerceContext } from '../context.js';
import type { CommerceEnv } from '../db/api-keys-store.js';
import { dashboardStore, type PurchaseFilter } from '../db/dashboard-store.js';
import { listDeliveries } from './dashboard.js';

/** How many rows each list and trail shows: the dashboard is a window, not an export. */
const LIST_LIMIT = 100;
const TRAIL_LIMIT = 50;

/** Checkouts, orders and users of the account, narrowed by the operator's filter. */
export async function listPurchases(
  ctx: CommerceContext,
  accountId: string,
  filter: Omit<PurchaseFilter, 'limit'>,
) {
  const store = dashboardStore(ctx.db);
  const f = { ...filter, limit: LIST_LIMIT };
  const [checkouts, orders, users] = await Promise.all([
    store.listCheckouts(accountId, f),
    store.listOrders(accountId, f),
    store.listUsers(accountId, f),
  ]);
  return { checkouts, orders, users, limit: LIST_LIMIT };
}

/** The events about a checkout or an order, and their webhook deliveries. */
async function trail(
  ctx: CommerceContext,
  accountId: string,
  env: CommerceEnv,
  subject: { checkout_id: string } | { order_id: string },
) {
  const events = await dashboardStore(ctx.db).eventsAbout(accountId, env, subject, TRAIL_LIMIT);
  const deliveries = await listDeliveries(ctx, accountId, {
    eventIds: events.map((e) => e.id),
    limit: TRAIL_LIMIT * 4,
  });
  return { events, deliveries };
}

/** One checkout of the account (any environment), its order if any, its events and deliveries. */
export async function checkoutTrail(ctx: CommerceContext, accountId: string, id: string) {
  const store = dashboardStore(ctx.db);
  const checkout = await store.getCheckout(accountId, id);
  if (!checkout) throw new AppError(404, 'NOT_FOUND', `No checkout with id '${id}'.`);
  const order = checkout.order_id ? await store.getOrder(accountId, checkout.order_id) : undefined;
  return { checkout, order, ...(await trail(ctx, accountId, checkout.env, { checkout_id: checkout.id })) };
}

/** One order of the account, its events and deliveries. */
export async function orderTrail(ctx: CommerceContext, accountId: string, id: string) {
  const order = await dashboardStore(ctx.db).getOrder(accountId, id);
  if (!order) throw new AppError(404, 'NOT_FOUND', `No order with id '${id}'.`);
  return { order, ...(await trail(ctx, accountId, order.env, { order_id: order.id })) };
}
