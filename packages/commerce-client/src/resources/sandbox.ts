import { type APIPromise, APIResource, encodePath, type RequestOptions } from '@svc/client-core';
import type { Checkout, Connection, Order } from '@svc/webhooks';
import type { JsonBody, JsonResponse } from '../types.js';

export type SandboxPublicTokenParams = JsonBody<'/v1/sandbox/public_token', 'post'>;
export type SandboxPublicTokenResponse = JsonResponse<'/v1/sandbox/public_token', 'post'>;
export type SandboxConnectionParams = JsonBody<'/v1/sandbox/connections', 'post'>;
export type SandboxAdvanceOrderParams = JsonBody<'/v1/sandbox/orders/{id}/advance', 'post'>;

/**
 * Stand-ins for what the user, their device and the store do, so a whole purchase runs in
 * tests. Sandbox keys (`svc_test_`) only: a live key gets `403 SANDBOX_ONLY`. Everything but
 * `publicToken` acts for a user: call it on `client.forUser(userToken)`.
 */
export class Sandbox extends APIResource {
  /**
   * Skips the hosted approval page: a `public_token` as if the user had approved (default
   * `client_user_id` "sandbox-user"). Exchange it with `approvalTokens.exchange`.
   * `merchant_ids` are connected at once.
   */
  publicToken(
    body: SandboxPublicTokenParams = {},
    options?: RequestOptions,
  ): APIPromise<SandboxPublicTokenResponse> {
    return this._core.request({ ...options, method: 'POST', path: '/sandbox/public_token', body });
  }

  /**
   * Sets the user's connection to a store (`status` `active` by default, `needs_user` or
   * `revoked`). Checkouts waiting for the connection move on when it becomes active.
   */
  createConnection(body: SandboxConnectionParams, options?: RequestOptions): APIPromise<Connection> {
    return this._core.request({
      ...options,
      method: 'POST',
      path: '/sandbox/connections',
      body,
      requiresUserToken: true,
    });
  }

  /** The user's device or browser finishes a `device_session` or `browser` next action. */
  completeAction(checkoutId: string, options?: RequestOptions): APIPromise<Checkout> {
    return this.#checkoutStep(checkoutId, 'complete_action', options);
  }

  /** The user confirms a total above `confirm_above`, as on the hosted confirm page. */
  userConfirm(checkoutId: string, options?: RequestOptions): APIPromise<Checkout> {
    return this.#checkoutStep(checkoutId, 'user_confirm', options);
  }

  /** The store finishes placing an order that waits in `confirming`. */
  merchantComplete(checkoutId: string, options?: RequestOptions): APIPromise<Checkout> {
    return this.#checkoutStep(checkoutId, 'merchant_complete', options);
  }

  /** Moves an order to its next status (placed, shipped, delivered), or to `status` when given. */
  advanceOrder(
    orderId: string,
    body: SandboxAdvanceOrderParams = {},
    options?: RequestOptions,
  ): APIPromise<Order> {
    return this._core.request({
      ...options,
      method: 'POST',
      path: encodePath`/sandbox/orders/${orderId}/advance`,
      body,
      requiresUserToken: true,
    });
  }

  #checkoutStep(id: string, step: string, options: RequestOptions | undefined): APIPromise<Checkout> {
    return this._core.request({
      ...options,
      method: 'POST',
      path: `${encodePath`/sandbox/checkouts/${id}`}/${step}`,
      requiresUserToken: true,
    });
  }
}
