import { type APIPromise, APIResource, type RequestOptions } from '@svc/client-core';
import type { WebhookEndpoint } from '@svc/webhooks';
import type { JsonBody } from '../types.js';

export type WebhookEndpointCreateParams = JsonBody<'/v1/webhook_endpoints', 'post'>;

/** Where the service posts signed events. Listing and removing endpoints is done in the dashboard. */
export class WebhookEndpoints extends APIResource {
  /**
   * Registers a public https `url` for this key's environment (sandbox or live). The `secret`
   * (`whsec_...`) is returned only here: store it with the receiver and verify every delivery
   * with `@svc/webhooks`. Private and local URLs are refused (`400 URL_NOT_ALLOWED`) unless the
   * server runs with `SERVICE_WEBHOOK_ALLOW_PRIVATE=1`.
   */
  create(body: WebhookEndpointCreateParams, options?: RequestOptions): APIPromise<WebhookEndpoint> {
    return this._core.request({ ...options, method: 'POST', path: '/webhook_endpoints', body });
  }
}
