import type { APIPromise, RequestOptions } from '@svc/client-core';
import { APIResource } from '@svc/client-core';
import type { JsonResponse } from '../types.js';

export class ModeResource extends APIResource {
  /** `sandbox` or `live`, `simulated` or `real`, and the label MCP results carry. */
  retrieve(options?: RequestOptions): APIPromise<JsonResponse<'/v1/mode', 'get'>> {
    return this._core.request({ method: 'GET', path: '/mode', ...options });
  }
}
