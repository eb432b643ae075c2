import {
  type ClientCore,
  type PagePromise,
  paginate,
  type QueryParams,
  type RequestOptions,
  toListPage,
} from '@svc/client-core';
import type { ItemOf, PageOf } from './types.js';

/** Base of every resource: holds the shared request core. */
export abstract class APIResource {
  protected readonly _core: ClientCore;

  constructor(core: ClientCore) {
    this._core = core;
  }
}

/**
 * A list in the server's `{ <key>: [...], has_more, next_after }` convention, paged with
 * `limit` + `after`. The page type is the server's own body, so extras such as approval
 * `counts` stay typed on every page.
 */
export function pagedList<B, K extends keyof B & string>(
  core: ClientCore,
  path: string,
  key: K,
  query: object | undefined,
  options: RequestOptions | undefined,
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
 * A list the server returns whole (agents, API keys). It is still a PagePromise, with one
 * page, so every list in the client iterates and awaits the same way.
 */
export function wholeList<B, K extends keyof B & string>(
  core: ClientCore,
  path: string,
  key: K,
  options: RequestOptions | undefined,
): PagePromise<ItemOf<B, K>, PageOf<B, K>> {
  return paginate<ItemOf<B, K>, PageOf<B, K>>(async () => {
    const body = await core.request<B>({ ...options, method: 'GET', path });
    // toListPage checks the key is there, so a shape change fails loudly, not as `[]`.
    const page = toListPage<ItemOf<B, K>, K>(body, key);
    return { ...page, has_more: false, next_after: null } as unknown as PageOf<B, K>;
  });
}
