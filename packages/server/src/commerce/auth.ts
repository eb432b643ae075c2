import { bearerToken } from '../platform/api-key-hash.js';
import type { SqlDatabase } from '../platform/db/sqlite.js';
import type { Authenticators } from '../platform/http/index.js';
import type { ServiceDeps } from '../platform/service.js';
import { authenticateCommerceKey, type CommerceKeyContext } from './services/api-keys.js';

/** The auth names routes declare, and what each hands to its handler. */
export type CommerceAuth = {
  none: null;
  key: CommerceKeyContext;
};

export function commerceAuthenticators(db: SqlDatabase, deps: ServiceDeps): Authenticators<CommerceAuth> {
  return {
    none: () => null,
    key: (req) => authenticateCommerceKey(db, deps, bearerToken(req.headers.authorization)),
  };
}
