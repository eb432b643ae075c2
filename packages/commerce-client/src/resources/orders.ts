import {
  type APIPromise,
  APIResource,
  encodePath,
  type PagePromise,
  type RequestOptions,
  wholeList,
} from '@svc/client-core';
import type { Order } from '@svc/webhooks';
import type { JsonResponse, PageOf } from '../types.js';

type ListBody = JsonResponse<'/v1/orders', 'get'>;
/** `orders` (also as `items`), newest first, up to 100; `has_more` is always false. */
export type OrderListPage = PageOf<ListBody, 'orders'>;

/** The user's orders. User-scoped: call on `client.forUser(userToken)`. */
export class Orders extends APIResource {
  /** The user's orders, newest first, up to 100, in one page. Lazy: nothing is sent until you await or iterate. */
  list(options?: RequestOptions): PagePromise<Order, OrderListPage> {
    return wholeList<ListBody, 'orders'>(this._core, '/orders', 'orders', {
      ...options,
      requiresUserToken: true,
    });
  }

  /** One order; always current, so read it back when webhook order matters. */
  retrieve(id: string, options?: RequestOptions): APIPromise<Order> {
    return this._core.request({
      ...options,
      method: 'GET',
      path: encodePath`/orders/${id}`,
      requiresUserToken: true,
    });
  }

  /** @deprecated Use `retrieve(id)`, the verb both clients share. `get` behaves the same and will be removed in 1.0. */
  get(id: string, options?: RequestOptions): APIPromise<Order> {
    return this.retrieve(id, options);
  }
}
