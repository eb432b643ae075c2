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
    summary: 'One merchant.',
    tags: ['Merchants'],
    params: idParam,
    response: Merchant,
    handler: ({ auth, params }) => getMerchant(commerceStores(ctx.db), auth.env, params.id),
  }),
];
