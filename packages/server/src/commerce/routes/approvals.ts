import { z } from 'zod';
import { reply } from '../../platform/http/index.js';
import type { CommerceContext } from '../context.js';
import { defineRoute } from '../route.js';
import { CreateApprovalBody, ExchangeBody } from '../schemas/requests.js';
import { createApproval } from '../services/approvals.js';
import { exchangePublicToken } from '../services/users.js';
import { publicBaseUrl } from './base-url.js';

export const approvalRoutes = (ctx: CommerceContext) => [
  defineRoute({
    method: 'post',
    path: '/v1/approval_tokens',
    auth: 'key',
    operationId: 'createApprovalToken',
    description:
      'Starts the hosted approval flow for one of your users (`client_user_id`), with optional spending rules and the stores to offer for connecting. Send the user to `hosted_url`; after they approve they come back to `redirect_uri` with a `public_token`. The token lasts 30 minutes.',
    summary: 'Starts the hosted approval flow for one of your users; the token lasts 30 minutes.',
    tags: ['Users'],
    body: CreateApprovalBody,
    status: 201,
    errors: {
      400: 'INVALID_REQUEST, also for an unknown id in merchant_ids',
      422: 'MERCHANT_NOT_SUPPORTED: a store in merchant_ids that this key cannot connect',
    },
    response: z.object({
      approval_token: z.string(),
      expiration: z.string(),
      hosted_url: z.string().describe('Send the user here.'),
    }),
    handler: async ({ auth, body, req }) =>
      reply(await createApproval(ctx, auth, body, publicBaseUrl(req, ctx.config)), { status: 201 }),
  }),
  defineRoute({
    method: 'post',
    path: '/v1/approval_tokens/exchange',
    auth: 'key',
    operationId: 'exchangePublicToken',
    description:
      'Trades the `public_token` your redirect received for a long-lived `user_token` (send it as Service-User-Token) and the `user_id`. Each public token works once.',
    summary: 'Trades the public_token from the redirect for a user token. Works once.',
    tags: ['Users'],
    body: ExchangeBody,
    response: z.object({
      user_token: z.string().describe('user- prefix; keep it server-side.'),
      user_id: z.string(),
    }),
    handler: ({ auth, body }) => exchangePublicToken(ctx, auth, body.public_token),
  }),
];
