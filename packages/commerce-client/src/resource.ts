import {
  APIPromise,
  type APIResponse,
  type ClientCore,
  type Page,
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
 * A list the server returns whole (orders, connections): one request, one page. It is an
 * APIPromise, so `.withResponse()` works, and it iterates like a paged list, so every list in
 * the client reads the same: `for await (const order of client.orders.list())`.
 */
export class WholeListPromise<T, P extends Page<T> = Page<T>>
  extends APIPromise<P>
  implements AsyncIterable<T>
{
  /** The one page, with `has_more: false`. */
  firstPage(): Promise<P> {
    return this.then((page) => page);
  }

  /** Every page: here, exactly one. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    yield await this.firstPage();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    yield* (await this.firstPage()).items;
  }
}

export function wholeList<B, K extends keyof B & string>(
  core: ClientCore,
  path: string,
  key: K,
  options: RequestOptions | undefined,
): WholeListPromise<ItemOf<B, K>, PageOf<B, K>> {
  const result = core
    .request<B>({ ...options, method: 'GET', path, requiresUserToken: true })
    .withResponse()
    .then(
      (response): APIResponse<PageOf<B, K>> => ({
        ...response,
        // toListPage checks the key is there, so a shape change fails loudly rather than as `[]`.
        data: {
          ...toListPage<ItemOf<B, K>, K>(response.data, key),
          has_more: false,
          next_after: null,
        } as PageOf<B, K>,
      }),
    );
  return new WholeListPromise(result);
}
