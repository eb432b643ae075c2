import type { Clock } from '../../platform/clock.js';
import type { SqlExecutor } from '../../platform/db/sqlite.js';
import { AppError } from '../../platform/errors.js';
import type { CommerceEnv } from '../db/api-keys-store.js';
import type { Merchant } from '../schemas/resources.js';
import type { StoreAdapter } from './adapter.js';
import { sandboxAdapter } from './sandbox-adapter.js';

/** Whether this build has a route to the merchant in this environment (only sandbox stores today). */
export const hasRoute = (merchant: Merchant, env: CommerceEnv): boolean =>
  env === 'sandbox' && merchant.sandbox === true;

/** The adapter that talks to a merchant over its route in this environment. */
export function adapterFor(
  deps: { db: SqlExecutor; clock: Clock },
  merchant: Merchant,
  env: CommerceEnv,
): StoreAdapter {
  if (hasRoute(merchant, env)) return sandboxAdapter(deps);
  throw new AppError(
    422,
    'MERCHANT_NOT_SUPPORTED',
    `Live orders through the '${merchant.route}' route are not available in this version of svc-server. Use a sandbox key and a sandbox store.`,
  );
}
