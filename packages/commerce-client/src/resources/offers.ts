import { type APIPromise, APIResource, encodePath, type RequestOptions } from '@svc/client-core';
import type { Offer } from '@svc/webhooks';
import type { JsonBody } from '../types.js';

export type OfferCreateParams = JsonBody<'/v1/offers', 'post'>;

/** Live price and availability for a product link. */
export class Offers extends APIResource {
  /**
   * Asks the store for the product at `url`. The offer expires 15 minutes after `fetched_at`;
   * a checkout needs an unexpired one. Major retailers answer `422 MERCHANT_NOT_SUPPORTED`:
   * create their checkouts from `product_url` instead. `item_ref` offers that variant first; at a
   * headless UCP store (no catalog, no product pages) it names the store's item, with `url` on the
   * store's origin, and the store prices it.
   */
  create(body: OfferCreateParams, options?: RequestOptions): APIPromise<Offer> {
    return this._core.request({ ...options, method: 'POST', path: '/offers', body });
  }

  /** One offer, as `create` returned it. */
  retrieve(id: string, options?: RequestOptions): APIPromise<Offer> {
    return this._core.request({ ...options, method: 'GET', path: encodePath`/offers/${id}` });
  }

  /** @deprecated Use `retrieve(id)`, the verb both clients share. `get` behaves the same and will be removed in 1.0. */
  get(id: string, options?: RequestOptions): APIPromise<Offer> {
    return this.retrieve(id, options);
  }
}
