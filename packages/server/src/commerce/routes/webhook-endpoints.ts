import { reply } from '../../platform/http/index.js';
import type { CommerceContext } from '../context.js';
import { defineRoute } from '../route.js';
import { CreateWebhookEndpointBody } from '../schemas/requests.js';
import { WebhookEndpoint } from '../schemas/resources.js';
import { createEndpoint } from '../services/webhook-endpoints.js';

export const webhookEndpointRoutes = (ctx: CommerceContext) => [
  defineRoute({
    method: 'post',
    path: '/v1/webhook_endpoints',
    auth: 'key',
    operationId: 'createWebhookEndpoint',
    summary: "Registers a public https URL for this key's environment; the secret is shown once here.",
    description: 'Listing and removing endpoints is done in the dashboard.',
    tags: ['Webhooks'],
    body: CreateWebhookEndpointBody,
    status: 201,
    response: WebhookEndpoint,
    errors: { 400: 'INVALID_URL or URL_NOT_ALLOWED', 422: 'ENDPOINT_LIMIT_REACHED' },
    handler: async ({ auth, body }) => {
      const e = await createEndpoint(ctx, auth, body.url);
      return reply({ id: e.id, url: e.url, secret: e.secret }, { status: 201 });
    },
  }),
];
