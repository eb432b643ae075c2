import type { RequestHandler } from 'express';
import { z } from 'zod';
import { localTrustGuard, reply } from '../../platform/http/index.js';
import type { ApiKeyRecord } from '../db/api-keys-store.js';
import { defineRoute } from '../route.js';
import { idParam } from '../schemas/common.js';
import { createCommerceApiKey, listApiKeys, revokeApiKey } from '../services/api-keys.js';
import {
  addEndpoint,
  type DashboardContext,
  listDeliveries,
  resendEvent,
  sendTest,
} from '../services/dashboard.js';
import { listEndpoints, removeEndpoint } from '../services/webhook-endpoints.js';

const env = z.enum(['sandbox', 'live']);

/**
 * The dashboard shows webhook secrets and makes API keys, so it answers local requests only,
 * whatever SERVICE_PUBLIC_API says, and never a cross-origin browser request. One guard,
 * mounted on the dashboard's page router and on each of its JSON routes (`auth: 'local'`).
 */
export const dashboardGuard = (): RequestHandler =>
  localTrustGuard({
    localOnly: true,
    message:
      'The dashboard answers only requests made on the machine the server runs on: it shows webhook secrets and manages API keys. Open it there, or forward the port over SSH (ssh -N -L 4000:localhost:4000 you@server) and open http://localhost:4000/dashboard.',
  });

export const DashboardApiKey = z.object({
  id: z.string(),
  env,
  name: z.string(),
  prefix: z.string().describe('The first 12 characters of the key, to recognise it.'),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export const apiKeyView = (k: ApiKeyRecord): z.infer<typeof DashboardApiKey> => ({
  id: k.id,
  env: k.env,
  name: k.name,
  prefix: k.prefix,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
  revoked_at: k.revoked_at,
});

/** The name a key is made with: what the hosted approval page shows as the application's name. */
export const apiKeyName = z.string().trim().min(1).max(100);

/** An endpoint as the list shows it: never its signing secret (see DashboardNewEndpoint). */
export const DashboardEndpoint = z.object({
  id: z.string(),
  env,
  url: z.string(),
  created_at: z.string(),
});

/**
 * The answer to adding an endpoint: the only JSON that carries its secret, as whoever adds it has
 * to configure it. Later, the dashboard shows it only on a deliberate reveal (a POST).
 */
export const DashboardNewEndpoint = DashboardEndpoint.extend({ secret: z.string() });

export const DashboardDelivery = z.object({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  endpoint_id: z.string(),
  url: z.string(),
  env,
  status: z.enum(['pending', 'succeeded', 'failed', 'canceled']),
  attempts: z.array(
    z.object({
      attempt: z.int(),
      at: z.string(),
      response_status: z.int().nullable(),
      error: z.string().nullable(),
    }),
  ),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
});

const endpointView = (e: z.infer<typeof DashboardEndpoint>) => ({
  id: e.id,
  env: e.env,
  url: e.url,
  created_at: e.created_at,
});

/** The local-only admin surface behind the dashboard pages. Left out of the public OpenAPI document. */
export const dashboardRoutes = (ctx: DashboardContext) => [
  defineRoute({
    method: 'get',
    path: '/dashboard/api/webhook_endpoints',
    auth: 'local',
    operationId: 'dashboardListEndpoints',
    summary: 'Every webhook endpoint, sandbox and live. Never a secret.',
    hidden: true,
    response: z.object({ endpoints: z.array(DashboardEndpoint) }),
    handler: async ({ auth }) => ({
      endpoints: (await listEndpoints(ctx, auth.accountId)).map(endpointView),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/dashboard/api/webhook_endpoints',
    auth: 'local',
    operationId: 'dashboardAddEndpoint',
    summary: 'Adds an endpoint for one environment.',
    hidden: true,
    body: z.strictObject({ env, url: z.string().min(1).max(2000) }),
    status: 201,
    response: DashboardNewEndpoint,
    handler: async ({ auth, body }) => {
      const made = await addEndpoint(ctx, auth.accountId, body.env, body.url);
      return reply({ ...endpointView(made), secret: made.secret }, { status: 201 });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/dashboard/api/webhook_endpoints/:id',
    auth: 'local',
    operationId: 'dashboardRemoveEndpoint',
    summary: 'Removes an endpoint; its pending deliveries are canceled.',
    hidden: true,
    params: idParam,
    response: z.object({ id: z.string(), removed: z.literal(true) }),
    handler: async ({ auth, params }) => {
      await removeEndpoint(ctx, auth.accountId, params.id);
      return { id: params.id, removed: true as const };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/dashboard/api/webhook_endpoints/:id/test',
    auth: 'local',
    operationId: 'dashboardSendTest',
    summary: 'Posts a webhook.test event to the endpoint now.',
    hidden: true,
    params: idParam,
    response: DashboardDelivery,
    handler: async ({ auth, params }) => {
      const delivery = await sendTest(ctx, auth.accountId, params.id);
      if (!delivery) throw new Error('The test delivery vanished.');
      return delivery;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/dashboard/api/deliveries',
    auth: 'local',
    operationId: 'dashboardListDeliveries',
    summary: 'Deliveries, newest first, with every attempt and the next retry.',
    hidden: true,
    query: z.strictObject({
      endpoint_id: z.string().optional(),
      event_id: z.string().optional(),
      limit: z.coerce.number().int().min(1).max(200).default(50),
    }),
    response: z.object({ deliveries: z.array(DashboardDelivery) }),
    handler: async ({ auth, query }) => ({
      deliveries: await listDeliveries(ctx, auth.accountId, {
        endpointId: query.endpoint_id,
        eventId: query.event_id,
        limit: query.limit,
      }),
    }),
  }),
  defineRoute({
    method: 'post',
    path: '/dashboard/api/events/:id/resend',
    auth: 'local',
    operationId: 'dashboardResendEvent',
    summary: 'Delivers the event again now, to one endpoint or all of its environment.',
    hidden: true,
    params: idParam,
    body: z.strictObject({ endpoint_id: z.string().optional() }),
    response: z.object({ deliveries: z.array(DashboardDelivery) }),
    handler: async ({ auth, params, body }) => ({
      deliveries: await resendEvent(ctx, auth.accountId, params.id, body.endpoint_id),
    }),
  }),
  defineRoute({
    method: 'get',
    path: '/dashboard/api/api_keys',
    auth: 'local',
    operationId: 'dashboardListApiKeys',
    summary: 'Every API key, sandbox and live, newest first, revoked ones included. Never the secret.',
    hidden: true,
    response: z.object({ api_keys: z.array(DashboardApiKey) }),
    handler: async ({ auth }) => ({ api_keys: (await listApiKeys(ctx.db, auth.accountId)).map(apiKeyView) }),
  }),
  defineRoute({
    method: 'post',
    path: '/dashboard/api/api_keys',
    auth: 'local',
    operationId: 'dashboardCreateApiKey',
    summary: 'Makes a key. The response is the only place the secret `key` is ever shown.',
    hidden: true,
    body: z.strictObject({ env, name: apiKeyName }),
    status: 201,
    response: DashboardApiKey.extend({ key: z.string() }),
    handler: async ({ body }) => {
      const { key, record } = await createCommerceApiKey(ctx.db, ctx, body);
      return reply({ ...apiKeyView(record), key }, { status: 201 });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/dashboard/api/api_keys/:id/revoke',
    auth: 'local',
    operationId: 'dashboardRevokeApiKey',
    summary: 'Revokes a key; the next request made with it gets 401. Revoking twice changes nothing.',
    hidden: true,
    params: idParam,
    response: DashboardApiKey,
    handler: async ({ auth, params }) =>
      apiKeyView(await revokeApiKey(ctx.db, ctx, auth.accountId, params.id)),
  }),
];
