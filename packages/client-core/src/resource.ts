// The building blocks both clients make their resources from, so a list, a user-scoped call
// and a resource class behave the same in each.
import { withData } from './api-promise.js';
import type { ItemOf, PageOf } from './openapi-types.js';
import { PagePromise, toListPage } from './pagination.js';
import type { ClientCore, QueryParams, RequestOptions } from './request.js';

/** Base of every resource: holds the shared request core. */
export abstract class APIResource {
  protected readonly _core: ClientCore;

  constructor(core: ClientCore) {
    this._core = core;
  }
}

/** A list call's options: the caller's RequestOptions plus what the resource knows about the route. */
export interface ListOptions extends RequestOptions {
  /** Reject with MissingUserTokenError, sending nothing, when the client has no user token. */
  requiresUserToken?: boolean | undefined;
  /** GET unless the list does work as it reads (content's outcomes settle the page: a POST). */
  method?: 'GET' | 'POST' | undefined;
}

/**
 * A list in the servers' `{ <key>: [...], has_more, next_after }` convention, paged with
 * `limit` + `after`. The page type is the server's own body, so extras such as approval
 * `counts` stay typed on every page.
 */
export function pagedList<B, K extends keyof B & string>(
  core: ClientCore,
  path: string,
  key: K,
  query: object | undefined,
  options: ListOptions | undefined,
): PagePromise<ItemOf<B, K>, PageOf<B, K>> {
  // The core's ListPage spreads the body, so the extras are there at run time; only the
  // static type needs widening to the generated response.
  return core.list<ItemOf<B, K>, K>({
    ...options,
    path,
    key,
    query: query as QueryParams | undefined,
  }) as unknown as PagePromise<ItemOf<B, K>, PageOf<B, K>>;
}

/**
 * A list the server returns whole, in one response (orders, connections, agents, API keys).
 * It is a PagePromise with one page, so every list in both clients reads the same: lazy
 * (nothing is sent until it is awaited or iterated), `for await` over the items,
 * `.firstPage()`, `.pages()` and `.withResponse()`.
 */
export function wholeList<B, K extends keyof B & string>(
  core: ClientCore,
  path: string,
  key: K,
  options: ListOptions | undefined,
): PagePromise<ItemOf<B, K>, PageOf<B, K>> {
  return new PagePromise<ItemOf<B, K>, PageOf<B, K>>(async () => {
    const result = await core.request<B>({ ...options, method: 'GET', path }).withResponse();
    // toListPage checks the key is there, so a shape change fails loudly, not as `[]`.
    const page = toListPage<ItemOf<B, K>, K>(result.data, key);
    return withData(result, { ...page, has_more: false, next_after: null } as unknown as PageOf<B, K>);
  });
}
