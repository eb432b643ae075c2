import { z } from 'zod';
import { AppError, invalidRequest } from '../../platform/errors.js';
import { reply } from '../../platform/http/index.js';
import type { CommerceContext } from '../context.js';
import { defineRoute } from '../route.js';
import { idParam } from '../schemas/common.js';
import { AdvanceOrderBody, SandboxConnectionBody, SandboxPublicTokenBody } from '../schemas/requests.js';
import { Checkout, Connection, Order } from '../schemas/resources.js';
import { sandboxPublicToken } from '../services/approvals.js';
import { completeAction, merchantComplete, setConnectionStatus, userConfirm } from '../services/checkouts.js';
import { advanceOrder } from '../services/orders.js';
import { toConnection } from '../services/serialize.js';
import { actorOf } from './actor.js';
import { publicBaseUrl } from './base-url.js';

const tags = ['Sandbox'];
const sandboxOnly = { 403: 'SANDBOX_ONLY: a live key.' };

export const sandboxRoutes = (ctx: CommerceContext) => [
  defineRoute({
    method: 'post',
    path: '/v1/sandbox/public_token',
    auth: 'sandboxKey',
    operationId: 'createSandboxPublicToken',
    description:
      'Skips the hosted page in sandbox: returns a `public_token` as if the user had approved, to exchange as usual.',
    summary: 'Skips the hosted page: a public_token as if the user had approved.',
    tags,
    body: SandboxPublicTokenBody,
    status: 201,
    response: z.object({ public_token: z.string() }),
    errors: sandboxOnly,
    handler: async ({ auth, body, req }) => {
      const out = await sandboxPublicToken(ctx, auth, body, publicBaseUrl(req, ctx.config));
      return reply(out, { status: 201 });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/sandbox/connections',
    auth: 'sandboxUser',
    operationId: 'setSandboxConnection',
    description:
      "Sets the user's connection to a sandbox store to active, needs_user or revoked, emitting the matching connection events.",
    summary:
      "Sets the user's connection to a store: active (connected), needs_user, or revoked (disconnected).",
    tags,
    body: SandboxConnectionBody,
    response: Connection,
    errors: sandboxOnly,
    handler: async ({ auth, body, req }) => {
      try {
        return toConnection(
          await setConnectionStatus(ctx, actorOf(ctx, auth, req), body.merchant_id, body.status),
        );
      } catch (err) {
        if (err instanceof AppError && err.status === 404) throw invalidRequest(err.message, 'merchant_id');
        throw err;
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/sandbox/checkouts/:id/user_confirm',
    auth: 'sandboxUser',
    operationId: 'sandboxUserConfirm',
    description:
      'Acts as the user confirming, on the hosted confirm page, a total above their `confirm_above` rule.',
    summary: 'The user confirms a total above confirm_above, as on the hosted confirm page.',
    tags,
    params: idParam,
    response: Checkout,
    errors: sandboxOnly,
    handler: ({ auth, params, req }) => userConfirm(ctx, actorOf(ctx, auth, req), params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/sandbox/checkouts/:id/complete_action',
    auth: 'sandboxUser',
    operationId: 'sandboxCompleteAction',
    description:
      "Acts as the user's device or browser finishing the `device_session` or `browser` step in `next_action`.",
    summary: "The user's device or browser finishes the device_session or browser step in next_action.",
    tags,
    params: idParam,
    response: Checkout,
    errors: sandboxOnly,
    handler: ({ auth, params, req }) => completeAction(ctx, actorOf(ctx, auth, req), params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/sandbox/checkouts/:id/merchant_complete',
    auth: 'sandboxUser',
    operationId: 'sandboxMerchantComplete',
    description: 'Acts as the store finishing an order that waits in `confirming`.',
    summary: 'The store finishes placing an order that waits in confirming.',
    tags,
    params: idParam,
    response: Checkout,
    errors: sandboxOnly,
    handler: ({ auth, params, req }) => merchantComplete(ctx, actorOf(ctx, auth, req), params.id),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/sandbox/orders/:id/advance',
    auth: 'sandboxUser',
    operationId: 'sandboxAdvanceOrder',
    description:
      'Moves an order to its next status (placed → shipped → delivered), or to canceled or returned, emitting `order.updated`.',
    summary: 'Moves an order to its next status (placed, shipped, delivered), or to canceled or returned.',
    tags,
    params: idParam,
    body: AdvanceOrderBody,
    response: Order,
    errors: { ...sandboxOnly, 409: 'ORDER_STATE_INVALID' },
    handler: ({ auth, params, body, req }) =>
      advanceOrder(ctx, actorOf(ctx, auth, req), params.id, body.status),
  }),
];
