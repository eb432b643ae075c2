import type { PersonContext } from '../auth.js';
import type { Caller } from '../context.js';
import type { Page } from '../schemas/common.js';

/** Local REST requests act as the workspace's person; recorded as source `app`. */
export const callerOf = (auth: PersonContext): Caller => ({ source: 'app', personId: auth.personId });

/** `{ <plural>: [...], has_more, next_after }`: the list shape both clients page through. */
export const listBody = <K extends string, T>(key: K, page: Page<T>) =>
  ({ [key]: page.items, has_more: page.has_more, next_after: page.next_after }) as { [P in K]: T[] } & {
    has_more: boolean;
    next_after: string | null;
  };

export const NOT_FOUND = { 404: 'NOT_FOUND: an id in the path or body does not exist.' };
