import { type APIPromise, APIResource, encodePath, type RequestOptions } from '@svc/client-core';
import type { Checkout } from '@svc/webhooks';
import type { JsonBody } from '../types.js';
import { type CheckoutWaitForOptions, waitForCheckout } from '../wait-for.js';

export type CheckoutCreateParams = JsonBody<'/v1/checkouts', 'post'>;
export type CheckoutUpdateParams = JsonBody<'/v1/checkouts/{id}/update', 'post'>;
export type CheckoutUserInputParams = JsonBody<'/v1/checkouts/{id}/user_input', 'post'>;

/**
 * Checkouts: from an offer or a product link to an order. User-scoped: call on
 * `client.forUser(userToken)`. Every method answers with the full Checkout after the change.
 */
export class Checkouts extends APIResource {
  /**
   * Starts a checkout from an unexpired `offer_id` or a `product_url` (required for major
   * retailers). With `buyer.email` and `shipping_address` the store can price shipping and tax;
   * without them the checkout waits in `building`.
   */
  create(body: CheckoutCreateParams, options?: RequestOptions): APIPromise<Checkout> {
    return this.#post('/checkouts', body, options);
  }

  /** The current checkout; always up to date. */
  retrieve(id: string, options?: RequestOptions): APIPromise<Checkout> {
    return this._core.request({
      ...options,
      method: 'GET',
      path: encodePath`/checkouts/${id}`,
      requiresUserToken: true,
    });
  }

  /** @deprecated Use `retrieve(id)`, the verb both clients share. `get` behaves the same and will be removed in 1.0. */
  get(id: string, options?: RequestOptions): APIPromise<Checkout> {
    return this.retrieve(id, options);
  }

  /** Adds or replaces `buyer` and `shipping_address`; the store re-prices. Not for major retailers. */
  update(id: string, body: CheckoutUpdateParams, options?: RequestOptions): APIPromise<Checkout> {
    return this.#post(encodePath`/checkouts/${id}/update`, body, options);
  }

  /**
   * Places the order; only in `ready_to_confirm`. Pass your own `idempotencyKey` (one per
   * purchase, stored before the call) so that repeating the call after a crash or a lost
   * response can never buy twice. A store's decline is not an HTTP error: the checkout comes
   * back `failed` with `error` set.
   */
  confirm(id: string, options?: RequestOptions): APIPromise<Checkout> {
    return this.#post(encodePath`/checkouts/${id}/confirm`, undefined, options);
  }

  /**
   * Sends the values `next_action.fields` asked for while the checkout is
   * `requires_user_action`, e.g. `{ fields: { code: '424242' } }`.
   */
  userInput(id: string, body: CheckoutUserInputParams, options?: RequestOptions): APIPromise<Checkout> {
    return this.#post(encodePath`/checkouts/${id}/user_input`, body, options);
  }

  /** Cancels an open checkout (`building`, `requires_user_action` or `ready_to_confirm`). */
  cancel(id: string, options?: RequestOptions): APIPromise<Checkout> {
    return this.#post(encodePath`/checkouts/${id}/cancel`, undefined, options);
  }

  /**
   * Reads the checkout until its status is in `until` (by default every status where the app
   * must act, or that is final) and resolves with it. Reads start 500 ms apart and back off to
   * 5 s. Rejects with `CheckoutWaitTimeoutError` after `timeoutMs` (default 5 minutes) and
   * `CheckoutWaitAbortedError` when `signal` fires; both carry the last `checkout` read.
   *
   * ```ts
   * const checkout = await user.checkouts.waitFor(id, {
   *   onUpdate: (c) => console.log(c.status),
   * });
   * ```
   */
  waitFor(id: string, options: CheckoutWaitForOptions = {}): APIPromise<Checkout> {
    return waitForCheckout(id, (signal) => this.retrieve(id, { signal }), options, this._core.config.sleep);
  }

  #post(path: string, body: unknown, options: RequestOptions | undefined): APIPromise<Checkout> {
    return this._core.request({ ...options, method: 'POST', path, body, requiresUserToken: true });
  }
}
