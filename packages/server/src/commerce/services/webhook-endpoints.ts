import { AppError } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import { checkPublicUrl } from '../../platform/net/public-url.js';
import type { CommerceContext, Tenant } from '../context.js';
import { commerceStores } from '../db/stores.js';
import type { EndpointRecord } from '../db/webhooks-store.js';

/** Stripe's limit; a runaway script should not fan every event out a thousand times. */
export const MAX_ENDPOINTS_PER_ENV = 16;

/**
 * Only public https URLs, unless the operator turned on SERVICE_WEBHOOK_ALLOW_PRIVATE for local
 * development. Names that resolve to private space are caught again at every delivery.
 */
export async function createEndpoint(
  ctx: CommerceContext,
  tenant: Tenant,
  rawUrl: string,
): Promise<EndpointRecord> {
  const url = checkPublicUrl(rawUrl, {
    allowPrivate: ctx.config.webhookAllowPrivate,
    requireHttps: true,
    allowPrivateSetting: 'SERVICE_WEBHOOK_ALLOW_PRIVATE',
  });
  const s = commerceStores(ctx.db);
  if ((await s.webhooks.countEndpoints(tenant.accountId, tenant.env)) >= MAX_ENDPOINTS_PER_ENV) {
    throw new AppError(
      422,
      'ENDPOINT_LIMIT_REACHED',
      `An environment can have at most ${MAX_ENDPOINTS_PER_ENV} webhook endpoints; remove one in the dashboard first.`,
    );
  }
  const endpoint: EndpointRecord = {
    id: ctx.ids.make('whk'),
    account_id: tenant.accountId,
    env: tenant.env,
    url: url.href,
    secret: `whsec_${randomBase62(32)}`,
    created_at: ctx.clock.now().toISOString(),
  };
  await s.webhooks.insertEndpoint(endpoint);
  return endpoint;
}

export async function listEndpoints(ctx: CommerceContext, accountId: string) {
  return commerceStores(ctx.db).webhooks.listEndpoints(accountId);
}

export async function removeEndpoint(ctx: CommerceContext, accountId: string, id: string): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const s = commerceStores(tx);
    if (!(await s.webhooks.getEndpoint(accountId, id))) {
      throw new AppError(404, 'NOT_FOUND', `No webhook endpoint with id '${id}'.`);
    }
    await s.webhooks.removeEndpoint(id, ctx.clock.now().toISOString());
  });
}

/** One current endpoint of the account, with its secret; a removed or unknown one is a 404. */
export async function getEndpoint(ctx: CommerceContext, accountId: string, id: string) {
  const endpoint = await commerceStores(ctx.db).webhooks.getEndpoint(accountId, id);
  if (!endpoint) throw new AppError(404, 'NOT_FOUND', `No webhook endpoint with id '${id}'.`);
  return endpoint;
}
