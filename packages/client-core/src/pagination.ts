import type { APIResponse } from './api-promise.js';
import { ApiError } from './errors.js';

/** One page in the servers' list convention (`limit` + `after` in, this out). */
export interface Page<T> {
  items: T[];
  has_more: boolean;
  next_after: string | null;
}

/** A page that also keeps the list under its own key, e.g. `page.merchants`. */
export type ListPage<T, K extends string> = Page<T> & { [P in K]: T[] };

/**
 * Fetches the page after cursor `after` (`undefined` = the first page), with its response, so
 * that `withResponse()` on a list works as on any other call.
 */
export type FetchPage<P> = (after: string | undefined) => Promise<APIResponse<P>>;

/**
 * Lazy: nothing is fetched until you iterate, await, or call `firstPage()` or
 * `withResponse()`, and each of those starts again from the first page, so one PagePromise
 * can be iterated twice.
 *
 * Awaiting gives the first page, as in the OpenAI SDK; without that, the easy mistake
 * `const page = await client.merchants.list()` would silently give this object back.
 */
export class PagePromise<T, P extends Page<T> = Page<T>> implements AsyncIterable<T>, PromiseLike<P> {
  readonly #fetchPage: FetchPage<P>;

  constructor(fetchPage: FetchPage<P>) {
    this.#fetchPage = fetchPage;
  }

  /**
   * The first page plus its raw response, request id and replay flag, as `.withResponse()`
   * gives for every other call.
   */
  withResponse(): Promise<APIResponse<P>> {
    return this.#fetchPage(undefined);
  }

  /** The first page's raw Response (body unread). Errors still reject as typed errors. */
  asResponse(): Promise<Response> {
    return this.withResponse().then((result) => result.response);
  }

  /** The first page only, with `has_more` and `next_after` for manual paging. */
  firstPage(): Promise<P> {
    return this.withResponse().then((result) => result.data);
  }

  /** Every page, in order. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    let after: string | undefined;
    for (;;) {
      const { data: page } = await this.#fetchPage(after);
      yield page;
      // A server that says has_more but gives no new cursor would loop forever; stop instead.
      if (!page.has_more || page.next_after === null || page.next_after === after) return;
      after = page.next_after;
    }
  }

  /** Every item across every page: `for await (const m of client.merchants.list())`. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) {
      yield* page.items;
    }
  }

  // biome-ignore lint/suspicious/noThenProperty: awaiting a list gives its first page.
  then<R1 = P, R2 = never>(
    onfulfilled?: ((value: P) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onfulfilled, onrejected);
  }
}

/** Turns a `{ <key>: T[], has_more, next_after }` body into a ListPage. */
export function toListPage<T, K extends string>(body: unknown, key: K): ListPage<T, K> {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const items = record[key];
  if (!Array.isArray(items)) {
    throw new ApiError(
      `List response has no "${key}" array; the server and client disagree on the list shape.`,
      {
        body,
      },
    );
  }
  const nextAfter = typeof record.next_after === 'string' ? record.next_after : null;
  return {
    ...record,
    items: items as T[],
    has_more: record.has_more === true,
    next_after: nextAfter,
  } as ListPage<T, K>;
}
