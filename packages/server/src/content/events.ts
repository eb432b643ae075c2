import type { ContentContext } from './context.js';
import type { ContentStores } from './db/stores/index.js';
import type { EventName } from './domain.js';

export interface ContentEvent {
  name: EventName;
  brandId: string;
  postId: string;
  at: string;
}

export type ContentEventHandler = (event: ContentEvent) => Promise<void>;

/** Who listens to post events (automations subscribe at start-up). */
export interface ContentEvents {
  handlers: ContentEventHandler[];
}

/**
 * A claimed event stays with its instance this long: long enough for the automations it starts
 * (agents that may call a real model) to run. An instance that dies holding it lets it go when
 * this runs out, and the next pass on any instance hands it to the handlers again.
 */
export const EVENT_LEASE_MS = 10 * 60_000;
/** Handled events are kept this long for diagnosis. */
const KEEP_HANDLED_MS = 7 * 24 * 3_600_000;

/**
 * Writes events to the outbox in the caller's transaction, the one that changes the post: the
 * event exists exactly when the change committed, whatever happens to this process afterwards.
 */
export async function recordEvents(
  ctx: Pick<ContentContext, 'ids' | 'clock'>,
  tx: ContentStores,
  list: readonly ContentEvent[],
): Promise<void> {
  const store = tx.contentEvents;
  const now = ctx.clock.now().toISOString();
  for (const e of list)
    await store.add({
      id: ctx.ids.make('cevt'),
      name: e.name,
      brand_id: e.brandId,
      post_id: e.postId,
      at: e.at,
      created_at: now,
    });
}

/**
 * Hands every waiting event to the handlers, one claimed event at a time, oldest first. Called
 * right after a change commits (so automations still follow their post at once) and on every
 * background pass (which picks up what a dead instance had claimed, once its lease ran out).
 * Across instances each event is handled by one of them at a time. Returns how many it handled.
 * Once the service's stop has begun it claims none (they stay waiting, for the next pass).
 */
export async function deliverEvents(
  ctx: Pick<ContentContext, 'stores' | 'clock' | 'events' | 'instanceId' | 'logger' | 'stopSignal'>,
): Promise<number> {
  const store = ctx.stores.contentEvents;
  let handled = 0;
  for (;;) {
    // A stop has begun: claim no further event. Each one's automations may run agents that call a
    // model (up to a minute a call), and the loop takes every waiting event, other instances' new
    // ones too, so close() would wait for all of them, and the kill at the end of the grace would
    // leave the one in hand leased for EVENT_LEASE_MS. Unclaimed, they wait in the outbox for the
    // next pass on any instance.
    if (ctx.stopSignal.aborted) break;
    const now = ctx.clock.realNow();
    const until = new Date(now.getTime() + EVENT_LEASE_MS).toISOString();
    const e = await store.claimNext(ctx.instanceId, now.toISOString(), until);
    if (!e) break;
    try {
      const event: ContentEvent = { name: e.name, brandId: e.brand_id, postId: e.post_id, at: e.at };
      for (const handler of ctx.events.handlers) await handler(event);
      await store.finish(e.id, ctx.instanceId, ctx.clock.now().toISOString());
      handled += 1;
    } catch (err) {
      // Left claimed: it comes back when the lease runs out, rather than spinning here.
      ctx.logger.error({ err, event: e.id }, 'a content event could not be handled; it is tried again later');
    }
  }
  return handled;
}

/** Drops handled events past their keeping time; the background pass calls it. */
export const purgeHandledEvents = (ctx: Pick<ContentContext, 'stores' | 'clock'>) =>
  ctx.stores.contentEvents.purge(new Date(ctx.clock.now().getTime() - KEEP_HANDLED_MS).toISOString());
