import { z } from 'zod';
import type { ContentContext } from '../context.js';
import { defineRoute } from '../route.js';
import { named } from '../schemas.js';
import {
  createContentApiKey,
  listContentApiKeys,
  revokeContentApiKey,
  SCOPES,
} from '../services/api-keys.js';

const Scope = named('ApiKeyScope', z.enum(SCOPES));

const ApiKey = named(
  'ApiKey',
  z.object({
    id: z.string(),
    name: z.string(),
    scopes: z.array(Scope),
    prefix: z.string().describe('The first 12 characters of the key, for display.'),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
  }),
);

export function apiKeyRoutes(ctx: ContentContext) {
  const { stores } = ctx;
  // The base clock, as before: created_at and revoked_at are when it happened, whatever the
  // sandbox clock says. A revoke also drops this instance's key cache and waits for the others.
  const clock = ctx.clock.real;
  const revokeDeps = {
    clock,
    keyCache: ctx.keyCache,
    stopwatch: ctx.stopwatch,
    logger: ctx.logger,
    sweepSilent: ctx.sweepSilent,
  };
  return [
    defineRoute({
      method: 'get',
      path: '/v1/api-keys',
      auth: 'person',
      operationId: 'listApiKeys',
      description:
        'Every key that still works, with its name, scopes, display prefix (first 12 characters) and when it was last used (to the minute). The full key is never shown again after creation.',
      summary: 'List API keys that have not been revoked, newest first.',
      tags: ['API keys'],
      response: z.object({ api_keys: z.array(ApiKey) }),
      handler: async () => ({ api_keys: await listContentApiKeys(stores) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/api-keys',
      auth: 'person',
      operationId: 'createApiKey',
      description:
        'Makes a key (`svc_` + 32 base62 characters) for MCP clients with the scopes given: `read` for the 14 read tools, `write` for the 9 write tools (`write` does not imply `read`). Only its SHA-256 hash is stored, so copy the key from this response. No key can publish, schedule, approve or delete.',
      summary: 'Create an API key for MCP clients. The full key is in this response only.',
      tags: ['API keys'],
      status: 201,
      body: z.strictObject({
        name: z.string().trim().min(1).max(100),
        scopes: z.array(Scope).min(1).max(2),
      }),
      response: ApiKey.extend({
        key: z.string().describe('The full key. Shown once; only its hash is stored.'),
      }),
      handler: async ({ body }) => {
        const { key, apiKey } = await createContentApiKey(stores, { clock, ids: ctx.ids }, body);
        return { ...apiKey, key };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/api-keys/:id',
      auth: 'person',
      operationId: 'revokeApiKey',
      description:
        'Revokes the key for good. The next MCP request that uses it gets 401; nothing it already did is undone.',
      summary: 'Revoke an API key. It stops working on the very next request.',
      tags: ['API keys'],
      params: z.object({ id: z.string() }),
      status: 200,
      response: z.object({ id: z.string(), revoked: z.literal(true) }),
      handler: async ({ params }) => {
        await revokeContentApiKey(ctx, revokeDeps, params.id);
        return { id: params.id, revoked: true as const };
      },
    }),
  ];
}
