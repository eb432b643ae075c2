import { AppError } from '../../platform/errors.js';
import type { CommerceContext } from '../context.js';
import type { CommerceEnv } from '../db/api-keys-store.js';
import type { Merchant } from '../schemas/resources.js';
import type { StoreAdapter } from './adapter.js';
import { longTailAdapter } from './long-tail/adapter.js';
import type { StorePageReads } from './long-tail/read.js';
import { sandboxAdapter } from './sandbox-adapter.js';
import { ucpAdapter } from './ucp/adapter.js';

/** Live routes this build has an adapter for (real stores, live keys). */
const LIVE_ROUTES: ReadonlySet<Merchant['route']> = new Set(['ucp', 'browser']);

/** Whether this build has a route to the merchant in this environment. */
export const hasRoute = (merchant: Merchant, env: CommerceEnv): boolean =>
  env === 'sandbox' ? merchant.sandbox === true : !merchant.sandbox && LIVE_ROUTES.has(merchant.route);

/**
 * The adapter that talks to a merchant over its route in this environment. `reads`: the store pages
 * this request has read already (long-tail stores), so that a page is read once per request.
 */
export function adapterFor(
  ctx: CommerceContext,
  merchant: Merchant,
  env: CommerceEnv,
  reads?: StorePageReads,
): StoreAdapter {
  if (hasRoute(merchant, env)) {
    if (env === 'sandbox') return sandboxAdapter(ctx);
    if (merchant.route === 'ucp') return ucpAdapter(ctx);
    if (merchant.route === 'browser') return longTailAdapter(ctx, reads);
  }
  if (env === 'live' && merchant.route === 'device_session') {
    throw new AppError(
      422,
      'MERCHANT_NOT_SUPPORTED',
      `${merchant.name} is a major retailer: its checkout runs in a device session, which needs software on the user's device that this product does not ship. Live orders at ${merchant.name} are not possible with svc-server.`,
    );
  }
  throw new AppError(
    422,
    'MERCHANT_NOT_SUPPORTED',
    `Live orders through the '${merchant.route}' route are not available in this version of svc-server. Use a sandbox key and a sandbox store.`,
  );
}
