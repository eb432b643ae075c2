import type { APIPromise, RequestOptions } from '@svc/client-core';
import { APIResource } from '@svc/client-core';
import type { JsonBody, JsonResponse } from '../types.js';

export type SandboxAdvanceParams = JsonBody<'/v1/sandbox/clock/advance', 'post'>;

/** The service's own clock in sandbox mode: read it, or move it forward to see the future now. */
export class SandboxClockResource extends APIResource {
  retrieve(options?: RequestOptions): APIPromise<JsonResponse<'/v1/sandbox/clock', 'get'>> {
    return this._core.request({ method: 'GET', path: '/sandbox/clock', ...options });
  }

  /**
   * Moves the clock by `minutes`/`hours`/`days`, or `to` a time. On the way it publishes due
   * posts, grows their metrics into snapshots, settles them at 72 h and fires due automations.
   * Sandbox only (409 `SANDBOX_ONLY` in live mode).
   */
  advance(
    body: SandboxAdvanceParams,
    options?: RequestOptions,
  ): APIPromise<JsonResponse<'/v1/sandbox/clock/advance', 'post'>> {
    return this._core.request({ method: 'POST', path: '/sandbox/clock/advance', body, ...options });
  }
}
