import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  pagedList,
  type RequestOptions,
} from '@svc/client-core';
import type { Merchant } from '@svc/webhooks';
import type { JsonResponse, PageOf, QueryOf } from '../types.js';

/** `q` searches names, domains and categories; `limit` (1-200, default 100) sizes each page. */
export type MerchantListParams = QueryOf<'/v1/merchants', 'get'>;
type ListBody = JsonResponse<'/v1/merchants', 'get'>;
/** One page: `merchants` (also as `items`), `has_more` and `next_after`. */
export type MerchantListPage = PageOf<ListBody, 'merchants'>;

/** Stores the service can buy from. */
export class Merchants extends APIResource {
  /**
   * Every merchant, page by page through `next_after`: the registry first (sandbox keys also see
   * sandbox stores), then the discovered catalog.
   *
   * ```ts
   * for await (const merchant of client.merchants.list({ q: 'coffee' })) console.log(merchant.name);
   * const first = await client.merchants.list({ limit: 20 }); // one page
   * ```
   */
  list(params: MerchantListParams = {}, options?: RequestOptions): PagePromise<Merchant, MerchantListPage> {
    return pagedList<ListBody, 'merchants'>(this._core, '/merchants', 'merchants', params, options);
  }

  /** One merchant by id (a registry name such as `sandbox-protocol`, or a protocol-store id). */
  retrieve(id: string, options?: RequestOptions): APIPromise<Merchant> {
    return this._core.request({ ...options, method: 'GET', path: encodePath`/merchants/${id}` });
  }

  /** @deprecated Use `retrieve(id)`, the verb both clients share. `get` behaves the same and will be removed in 1.0. */
  get(id: string, options?: RequestOptions): APIPromise<Merchant> {
    return this.retrieve(id, options);
  }
}
