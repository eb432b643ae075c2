import { AppError } from '../../platform/errors.js';
import type { CommerceContext } from '../context.js';
import type { CommerceEnv } from '../db/api-keys-store.js';
import type { Merchant } from '../schemas/resources.js';
import type { StoreAdapter } from './adapter.js';
import { sandboxAdapter } from './sandbox-adapter.js';
import { ucpAdapter } from './ucp/adapter.js';

const liveRoute = (merchant: Merchant, env: CommerceEnv, route: Merchant['route']) =>
  env === 'live' && merchant.sandbox !== true && merchant.route === route;

/** Whether this build has a route to the merchant in this environment. */
export const hasRoute = (merchant: Merchant, env: CommerceEnv): boolean =>
  (env === 'sandbox' && merchant.sandbox === true) || liveRoute(merchant, env, 'ucp');

/** The adapter that talks to a merchant over its route in this environment. */
export function adapterFor(
  deps: Pick<CommerceContext, 'db' | 'clock' | 'config' | 'logger'>,
  merchant: Merchant,
  env: CommerceEnv,
): StoreAdapter {
  if (env === 'sandbox' && merchant.sandbox === true) return sandboxAdapter(deps);
  if (liveRoute(merchant, env, 'ucp')) return ucpAdapter(deps);
  throw new AppError(
    422,
    'MERCHANT_NOT_SUPPORTED',
    `Live orders through the '${merchant.route}' route are not available in this version of svc-server. Use a sandbox key and a sandbox store.`,
  );
}
