import { AppError } from '../../platform/errors.js';
import type { CommerceContext } from '../context.js';
import { commerceStores } from '../db/stores.js';
import type { OrderStatus } from '../schemas/common.js';
import type { Order } from '../schemas/resources.js';
import type { Owner } from './connections.js';
import { writeEvents } from './events.js';
import { toOrder } from './serialize.js';

export const ORDER_LIST_LIMIT = 100;

/** Where an order may go from each status; the first entry is where `advance` goes by default. */
export const ORDER_TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  placed: ['shipped', 'canceled'],
  shipped: ['delivered'],
  delivered: ['returned'],
  canceled: [],
  returned: [],
};

const notFound = (id: string) => new AppError(404, 'NOT_FOUND', `No order with id '${id}'.`);

export async function listOrders(ctx: CommerceContext, owner: Owner): Promise<Order[]> {
  const rows = await commerceStores(ctx.db).orders.listForUser(owner.userId, ORDER_LIST_LIMIT);
  return rows.map(toOrder);
}

export async function getOrder(ctx: CommerceContext, owner: Owner, id: string): Promise<Order> {
  const order = await commerceStores(ctx.db).orders.findForUser(owner, id);
  if (!order) throw notFound(id);
  return toOrder(order);
}

/** Sandbox: moves an order to its next status (or to `to`, when that move is allowed). */
export async function advanceOrder(
  ctx: CommerceContext,
  owner: Owner,
  id: string,
  to: OrderStatus | undefined,
): Promise<Order> {
  const order = await ctx.db.transaction(async (tx) => {
    const s = commerceStores(tx);
    const current = await s.orders.findForUser(owner, id);
    if (!current) throw notFound(id);
    const allowed = ORDER_TRANSITIONS[current.status];
    const next = to ?? allowed[0];
    if (!next || !allowed.includes(next)) {
      throw new AppError(
        409,
        'ORDER_STATE_INVALID',
        allowed.length === 0
          ? `This order is ${current.status}, a final status.`
          : `This order is ${current.status}; it can move to ${allowed.join(' or ')}, not ${next}.`,
      );
    }
    const now = ctx.clock.now().toISOString();
    // The transition was checked on `current`; the write holds only if no other moved it since.
    if (!(await s.orders.moveStatus(current.id, current.status, next, now)))
      throw new AppError(
        409,
        'ORDER_STATE_INVALID',
        `Order ${current.id} changed while this request ran; fetch it and try again.`,
      );
    const updated = toOrder({ ...current, status: next, updated_at: now });
    await writeEvents(s, ctx, owner, [{ type: 'order.updated', data: updated }]);
    return updated;
  });
  ctx.eventsWritten();
  return order;
}
