import { type APIPromise, APIResource, type RequestOptions } from '@svc/client-core';
import type { JsonBody, JsonResponse } from '../types.js';

export type ApprovalTokenCreateParams = JsonBody<'/v1/approval_tokens', 'post'>;
/** `{ approval_token, expiration, hosted_url }`: send the user to `hosted_url`. */
export type ApprovalTokenCreateResponse = JsonResponse<'/v1/approval_tokens', 'post'>;
export type ApprovalTokenExchangeParams = JsonBody<'/v1/approval_tokens/exchange', 'post'>;
/** `{ user_token, user_id }`: keep the user token server-side, then use `client.forUser(user_token)`. */
export type ApprovalTokenExchangeResponse = JsonResponse<'/v1/approval_tokens/exchange', 'post'>;

/** The hosted approval flow that turns one of your users into a user token. */
export class ApprovalTokens extends APIResource {
  /**
   * Starts the flow for a user (`client_user_id`: your own id for them), with optional spending
   * `rules` and `merchant_ids` to offer for connecting. The token lasts 30 minutes. After
   * approving, the user lands on `redirect_uri` with `public_token` added to the query.
   */
  create(body: ApprovalTokenCreateParams, options?: RequestOptions): APIPromise<ApprovalTokenCreateResponse> {
    return this._core.request({ ...options, method: 'POST', path: '/approval_tokens', body });
  }

  /** Trades the `public_token` from the redirect for `{ user_token, user_id }`. A public token works once. */
  exchange(
    body: ApprovalTokenExchangeParams,
    options?: RequestOptions,
  ): APIPromise<ApprovalTokenExchangeResponse> {
    return this._core.request({ ...options, method: 'POST', path: '/approval_tokens/exchange', body });
  }
}
