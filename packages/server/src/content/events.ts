import type { EventName } from './domain.js';

export interface ContentEvent {
  name: EventName;
  brandId: string;
  postId: string;
  at: string;
}

export type ContentEventHandler = (event: ContentEvent) => Promise<void>;

/**
 * In-process fan-out. Services emit after their transaction commits, so a handler never sees
 * data that is later rolled back. Automations subscribe at start-up.
 */
export interface ContentEvents {
  handlers: ContentEventHandler[];
}

export async function emit(events: ContentEvents, list: readonly ContentEvent[]): Promise<void> {
  for (const event of list) for (const handler of events.handlers) await handler(event);
}
