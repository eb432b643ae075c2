import { type APIPromise, encodePath, type RequestOptions } from '@svc/client-core';
import type { Order } from '@svc/webhooks';
import { APIResource, type WholeListPromise, wholeList } from '../resource.js';
import type { JsonResponse, PageOf } from '../types.js';

/** `orders` (also as `items`), newest first, up to 100; `has_more` is always false. */
export type OrderListPage = PageOf<JsonResponse<'/v1/orders', 'get'>, 'orders'>;

/** The user's orders. User-scoped: call on `client.forUser(userToken)`. */
export class Orders extends APIResource {
  /** The user's orders, newest first, up to 100. */
  list(options?: RequestOptions): WholeListPromise<Order, OrderListPage> {
    return wholeList(this._core, '/orders', 'orders', options);
  }

  /** One order; always current, so read it back when webhook order matters. */
  get(id: string, options?: RequestOptions): APIPromise<Order> {
    return this._core.request({
      ...options,
      method: 'GET',
      path: encodePath`/orders/${id}`,
      requiresUserToken: true,
    });
  }
}
