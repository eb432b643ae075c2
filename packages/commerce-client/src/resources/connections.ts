import { APIResource, type PagePromise, type RequestOptions, wholeList } from '@svc/client-core';
import type { Connection } from '@svc/webhooks';
import type { JsonResponse, PageOf } from '../types.js';

type ListBody = JsonResponse<'/v1/connections', 'get'>;
/** `connections` (also as `items`); `has_more` is always false. */
export type ConnectionListPage = PageOf<ListBody, 'connections'>;

/** The user's store connections. User-scoped: call on `client.forUser(userToken)`. */
export class Connections extends APIResource {
  /** Every connection, in one page. Lazy, like every list: nothing is sent until you await or iterate. */
  list(options?: RequestOptions): PagePromise<Connection, ConnectionListPage> {
    return wholeList<ListBody, 'connections'>(this._core, '/connections', 'connections', {
      ...options,
      requiresUserToken: true,
    });
  }
}
