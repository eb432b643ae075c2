import { idempotentRequestOf } from '../../platform/http/idempotency.js';
import { reply } from '../../platform/http/index.js';
import type { CommerceContext } from '../context.js';
import { defineRoute } from '../route.js';
import { idParam } from '../schemas/common.js';
import { CreateCheckoutBody, UpdateCheckoutBody, UserInputBody } from '../schemas/requests.js';
import { Checkout } from '../schemas/resources.js';
import {
  cancelCheckout,
  confirmCheckout,
  createCheckout,
  getCheckout,
  submitUserInput,
  updateCheckout,
} from '../services/checkouts.js';
import { actorOf } from './actor.js';
import { publicBaseUrl } from './base-url.js';

const tags = ['Checkouts'];
const stateErrors = { 404: 'NOT_FOUND', 409: 'CHECKOUT_STATE_INVALID: not allowed in the current status.' };

export const checkoutRoutes = (ctx: CommerceContext) => [
  defineRoute({
    method: 'post',
    path: '/v1/checkouts',
    auth: 'user',
    operationId: 'createCheckout',
    description:
      'Starts buying for the user from an unexpired offer (`offer_id`) or a product link (`product_url`), with optional buyer and shipping address. The store prices it; the answer may need user action (`next_action`) before it is ready to confirm. Spending rules from the approval are checked here.',
    summary: 'Starts a checkout from an unexpired offer or a product link.',
    tags,
    body: CreateCheckoutBody,
    status: 201,
    response: Checkout,
    errors: {
      403: 'MERCHANT_NOT_ALLOWED',
      422: 'OFFER_EXPIRED, MERCHANT_NOT_SUPPORTED, SANDBOX_MERCHANT_REQUIRED',
      503: 'MERCHANT_UNAVAILABLE: the store failed, timed out or is down; Retry-After says when it is asked again.',
    },
    handler: async ({ auth, body, req }) =>
      reply(await createCheckout(ctx, actorOf(ctx, auth, req), body), { status: 201 }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/checkouts/:id',
    auth: 'user',
    operationId: 'getCheckout',
    description:
      'The checkout as it is now. Webhook events may arrive late or out of order; this is always current. The answer carries an `ETag`: a poll that sends it back in `If-None-Match` is answered `304 Not Modified`, without a body, while the checkout is unchanged.',
    summary: 'The current checkout; always up to date.',
    tags,
    params: idParam,
    response: Checkout,
    etag: true,
    handler: ({ auth, params, req }) =>
      getCheckout(ctx, auth, params.id, () => publicBaseUrl(req, ctx.config)),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/checkouts/:id/update',
    auth: 'user',
    operationId: 'updateCheckout',
    description:
      'Adds or replaces the buyer and the shipping address; the store re-prices and the totals change. Not for major retailers.',
    summary: 'Adds or replaces buyer and shipping address; the store re-prices. Not for major retailers.',
    tags,
    params: idParam,
    body: UpdateCheckoutBody,
    response: Checkout,
    errors: { ...stateErrors, 422: 'UPDATE_NOT_SUPPORTED' },
    handler: ({ auth, params, body, req }) => updateCheckout(ctx, actorOf(ctx, auth, req), params.id, body),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/checkouts/:id/confirm',
    auth: 'user',
    operationId: 'confirmCheckout',
    description:
      'Places the order. Only allowed in `ready_to_confirm`. Always send an Idempotency-Key: a retry with the same key returns the original outcome instead of ordering twice (docs/commerce/idempotency.md).',
    summary: 'Places the order; only in ready_to_confirm. Send an Idempotency-Key.',
    tags,
    params: idParam,
    response: Checkout,
    errors: { ...stateErrors, 422: 'MAX_PER_ORDER_EXCEEDED, MAX_PER_DAY_EXCEEDED, RULES_CURRENCY_MISMATCH' },
    // The key is claimed in the confirm's first transaction: a statement and a commit fewer.
    claimsKeyInTransaction: true,
    handler: ({ auth, params, req }) =>
      confirmCheckout(ctx, actorOf(ctx, auth, req), params.id, idempotentRequestOf(req)),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/checkouts/:id/user_input',
    auth: 'user',
    operationId: 'submitCheckoutUserInput',
    description:
      'Sends the values that `next_action.fields` asked for (for example a one-time code). Extra or missing fields are refused.',
    summary: 'Sends exactly the values next_action.fields asked for.',
    tags,
    params: idParam,
    body: UserInputBody,
    response: Checkout,
    errors: { ...stateErrors, 422: 'USER_INPUT_REJECTED' },
    handler: ({ auth, params, body, req }) =>
      submitUserInput(ctx, actorOf(ctx, auth, req), params.id, body.fields),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/checkouts/:id/cancel',
    auth: 'user',
    operationId: 'cancelCheckout',
    description:
      'Cancels a checkout that is still open. A completed, failed or canceled checkout answers 409.',
    summary: 'Cancels an open checkout.',
    tags,
    params: idParam,
    response: Checkout,
    errors: stateErrors,
    handler: ({ auth, params, req }) => cancelCheckout(ctx, actorOf(ctx, auth, req), params.id),
  }),
];
