import { type APIPromise, APIResource, type RequestOptions } from '@svc/client-core';
import type { JsonResponse } from '../types.js';

export type HealthStatus = JsonResponse<'/v1/health', 'get'>;

export class Health extends APIResource {
  /** `{ ok: true }` when the service answers. Needs no API key. */
  check(options?: RequestOptions): APIPromise<HealthStatus> {
    return this._core.request({ ...options, method: 'GET', path: '/health' });
  }
}
