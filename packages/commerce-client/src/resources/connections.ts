import type { RequestOptions } from '@svc/client-core';
import type { Connection } from '@svc/webhooks';
import { APIResource, type WholeListPromise, wholeList } from '../resource.js';
import type { JsonResponse, PageOf } from '../types.js';

/** `connections` (also as `items`); `has_more` is always false. */
export type ConnectionListPage = PageOf<JsonResponse<'/v1/connections', 'get'>, 'connections'>;

/** The user's store connections. User-scoped: call on `client.forUser(userToken)`. */
export class Connections extends APIResource {
  list(options?: RequestOptions): WholeListPromise<Connection, ConnectionListPage> {
    return wholeList(this._core, '/connections', 'connections', options);
  }
}
