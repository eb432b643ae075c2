import { z } from 'zod';
import type { CommerceContext } from '../context.js';
import { commerceStores } from '../db/stores.js';
import { defineRoute } from '../route.js';
import { idParam } from '../schemas/common.js';
import { ListMerchantsQuery } from '../schemas/requests.js';
import { Merchant } from '../schemas/resources.js';
import { getMerchant, listMerchants } from '../services/merchants.js';

export const merchantRoutes = (ctx: CommerceContext) => [
  defineRoute({
    method: 'get',
    path: '/v1/merchants',
    auth: 'key',
    operationId: 'listMerchants',
    description:
      'The first page starts with the registry (major retailers and named stores; sandbox keys also see sandbox stores), then the discovered catalog. Search names, domains and categories with `q`; page with `limit` (1-200, default 100) and `after`.',
    summary: 'Stores that can be bought from: the registry first, then the discovered catalog.',
    tags: ['Merchants'],
    query: ListMerchantsQuery,
    response: z.object({
      merchants: z.array(Merchant),
      has_more: z.boolean(),
      next_after: z.string().nullable(),
    }),
    handler: ({ auth, query }) => listMerchants(ctx, auth.env, query),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/merchants/:id',
    auth: 'key',
    operationId: 'getMerchant',
    description:
      'One merchant with its tier, route, capabilities, whether the user must connect it first, and its health status.',
    summary: 'One merchant.',
    tags: ['Merchants'],
    params: idParam,
    response: Merchant,
    handler: ({ auth, params }) => getMerchant(commerceStores(ctx.db), auth.env, params.id),
  }),
];
