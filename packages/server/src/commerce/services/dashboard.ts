import { AppError } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import type { CommerceContext } from '../context.js';
import type { CommerceEnv } from '../db/api-keys-store.js';
import { commerceStores } from '../db/stores.js';
import type { Dispatcher } from '../webhooks/dispatcher.js';
import { createEndpoint } from './webhook-endpoints.js';

export interface DashboardContext extends CommerceContext {
  dispatcher: Dispatcher;
}

export const addEndpoint = (ctx: CommerceContext, accountId: string, env: CommerceEnv, url: string) =>
  createEndpoint(ctx, { accountId, env }, url);

export async function listDeliveries(
  ctx: CommerceContext,
  accountId: string,
  filter: {
    endpointId?: string | undefined;
    eventId?: string | undefined;
    eventIds?: string[] | undefined;
    limit: number;
  },
) {
  const s = commerceStores(ctx.db);
  const rows = await s.webhooks.listDeliveries(accountId, {
    limit: filter.limit,
    ...(filter.endpointId ? { endpointId: filter.endpointId } : {}),
    ...(filter.eventId ? { eventId: filter.eventId } : {}),
    ...(filter.eventIds ? { eventIds: filter.eventIds } : {}),
  });
  const attempts = await s.webhooks.attemptsFor(rows.map((r) => r.id));
  const byDelivery = new Map<string, typeof attempts>();
  for (const a of attempts) byDelivery.set(a.delivery_id, [...(byDelivery.get(a.delivery_id) ?? []), a]);
  return rows.map((r) => ({
    id: r.id,
    event_id: r.event_id,
    event_type: r.event_type,
    endpoint_id: r.endpoint_id,
    url: r.url,
    env: r.env,
    status: r.status,
    attempts: (byDelivery.get(r.id) ?? []).map((a) => ({
      attempt: a.attempt,
      at: a.started_at,
      response_status: a.status_code,
      error: a.error,
    })),
    next_attempt_at: r.status === 'pending' ? r.next_attempt_at : null,
    created_at: r.created_at,
  }));
}

async function deliveriesById(ctx: CommerceContext, accountId: string, ids: string[]) {
  const all = await listDeliveries(ctx, accountId, { limit: 200 });
  return all.filter((d) => ids.includes(d.id));
}

/** Posts a `webhook.test` event to one endpoint now and reports how it went. */
export async function sendTest(ctx: DashboardContext, accountId: string, endpointId: string) {
  const deliveryId = ctx.ids.make('dlv');
  await ctx.db.transaction(async (tx) => {
    const s = commerceStores(tx);
    const endpoint = await s.webhooks.getEndpoint(accountId, endpointId);
    if (!endpoint) throw new AppError(404, 'NOT_FOUND', `No webhook endpoint with id '${endpointId}'.`);
    const at = ctx.clock.now().toISOString();
    const eventId = ctx.ids.make('evt');
    await s.webhooks.insertEvent({
      id: eventId,
      account_id: accountId,
      env: endpoint.env,
      type: 'webhook.test',
      data: { id: `test_${randomBase62(24)}`, message: 'A test event sent from the svc dashboard.' },
      created_at: at,
    });
    await s.webhooks.insertDelivery({ id: deliveryId, event_id: eventId, endpoint_id: endpoint.id, at });
  });
  await ctx.dispatcher.deliverNow([deliveryId]);
  const [delivery] = await deliveriesById(ctx, accountId, [deliveryId]);
  return delivery;
}

/** Delivers an event again, now, to one endpoint or to every current endpoint of its environment. */
export async function resendEvent(
  ctx: DashboardContext,
  accountId: string,
  eventId: string,
  endpointId?: string,
) {
  const ids = await ctx.db.transaction(async (tx) => {
    const s = commerceStores(tx);
    const event = await s.webhooks.getEvent(accountId, eventId);
    if (!event) throw new AppError(404, 'NOT_FOUND', `No event with id '${eventId}'.`);
    const endpoints = (await s.webhooks.listEndpoints(accountId, event.env)).filter(
      (e) => !endpointId || e.id === endpointId,
    );
    if (endpointId && endpoints.length === 0) {
      throw new AppError(
        404,
        'NOT_FOUND',
        `No webhook endpoint with id '${endpointId}' in the event's environment.`,
      );
    }
    // One INSERT for every endpoint's new delivery, as an event's own fan-out does (events.ts).
    const rows = endpoints.map((e) => ({ id: ctx.ids.make('dlv'), event_id: event.id, endpoint_id: e.id }));
    await s.webhooks.insertDeliveries(rows, ctx.clock.now().toISOString());
    return rows.map((r) => r.id);
  });
  await ctx.dispatcher.deliverNow(ids);
  return deliveriesById(ctx, accountId, ids);
}
