import { z } from 'zod';
import type { CommerceContext } from '../context.js';
import { defineRoute } from '../route.js';
import { idParam } from '../schemas/common.js';
import { Connection, Order } from '../schemas/resources.js';
import { listConnections } from '../services/connections.js';
import { getOrder, listOrders } from '../services/orders.js';
import { actorOf } from './actor.js';

export const orderRoutes = (ctx: CommerceContext) => [
  defineRoute({
    method: 'get',
    path: '/v1/orders',
    auth: 'user',
    operationId: 'listOrders',
    description: "The user's orders, newest first, at most 100.",
    summary: "The user's orders, newest first, up to 100.",
    tags: ['Orders'],
    response: z.object({ orders: z.array(Order) }),
    handler: async ({ auth, req }) => ({ orders: await listOrders(ctx, actorOf(ctx, auth, req)) }),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/orders/:id',
    auth: 'user',
    operationId: 'getOrder',
    description:
      'One order with its status (placed, shipped, delivered, canceled, returned). Always current.',
    summary: 'One order; always up to date.',
    tags: ['Orders'],
    params: idParam,
    response: Order,
    handler: ({ auth, params, req }) => getOrder(ctx, actorOf(ctx, auth, req), params.id),
  }),
  defineRoute({
    method: 'get',
    path: '/v1/connections',
    auth: 'user',
    operationId: 'listConnections',
    description: "The user's store connections and their status (`active`, `needs_user`, `revoked`).",
    summary: "The user's store connections.",
    tags: ['Connections'],
    response: z.object({ connections: z.array(Connection) }),
    handler: async ({ auth, req }) => ({ connections: await listConnections(ctx, actorOf(ctx, auth, req)) }),
  }),
];
