import type { CommerceContext, Tenant } from '../context.js';
import type { CommerceStores } from '../db/stores.js';
import type { EventType } from '../schemas/events.js';

export interface PendingEvent {
  type: EventType;
  data: unknown;
}

/**
 * The outbox: events are rows written in the caller's transaction, fanned out to the
 * environment's endpoints as deliveries. If the change rolls back, so do its events.
 */
export async function writeEvents(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock' | 'ids'>,
  tenant: Tenant,
  events: PendingEvent[],
): Promise<string[]> {
  if (events.length === 0) return [];
  const at = ctx.clock.now().toISOString();
  const endpoints = await s.webhooks.listEndpoints(tenant.accountId, tenant.env);
  const ids: string[] = [];
  const deliveries: { id: string; event_id: string; endpoint_id: string }[] = [];
  for (const e of events) {
    const id = ctx.ids.make('evt');
    ids.push(id);
    await s.webhooks.insertEvent({
      id,
      account_id: tenant.accountId,
      env: tenant.env,
      type: e.type,
      data: e.data,
      created_at: at,
    });
    for (const endpoint of endpoints)
      deliveries.push({ id: ctx.ids.make('dlv'), event_id: id, endpoint_id: endpoint.id });
  }
  await s.webhooks.insertDeliveries(deliveries, at);
  return ids;
}
