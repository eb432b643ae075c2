import type { Request } from 'express';
import { bearerToken } from '../platform/api-key-hash.js';
import type { SqlDatabase } from '../platform/db/sql.js';
import { AppError } from '../platform/errors.js';
import { type Authenticators, requireLocalTrust } from '../platform/http/index.js';
import type { ServiceDeps } from '../platform/service.js';
import {
  authenticateCommerceKey,
  type CommerceKeyCache,
  type CommerceKeyContext,
  DEFAULT_ACCOUNT_ID,
} from './services/api-keys.js';
import { authenticateUser, USER_TOKEN_HEADER, type UserGrant } from './services/users.js';

export interface CommerceUserContext extends CommerceKeyContext, UserGrant {}

/** The local dashboard acts for the one account of a self-hosted install. */
export interface LocalAdminContext {
  accountId: string;
}

/** The auth names routes declare, and what each hands to its handler. */
export type CommerceAuth = {
  none: null;
  key: CommerceKeyContext;
  user: CommerceUserContext;
  sandboxKey: CommerceKeyContext;
  sandboxUser: CommerceUserContext;
  local: LocalAdminContext;
};

const sandboxOnly = () =>
  new AppError(
    403,
    'SANDBOX_ONLY',
    'Sandbox endpoints and sandbox stores answer sandbox keys only. Use an svc_test_ key.',
  );

export function commerceAuthenticators(
  db: SqlDatabase,
  deps: ServiceDeps & { keyCache?: CommerceKeyCache },
): Authenticators<CommerceAuth> {
  const key = (req: Request) => authenticateCommerceKey(db, deps, bearerToken(req.headers.authorization));
  // Copied into a fresh `{}`, not spread into a literal: V8 gave each spread copy a hidden class
  // of its own, which kept about 0.3 KB a request alive into the old generation
  // (docs/benchmarks/history.md, "Issue 20, seventh pass: memory").
  const user = async (k: CommerceKeyContext, req: Request): Promise<CommerceUserContext> =>
    Object.assign({}, k, await authenticateUser({ db }, k, req.get(USER_TOKEN_HEADER)));
  const sandbox = (k: CommerceKeyContext) => {
    if (k.env !== 'sandbox') throw sandboxOnly();
    return k;
  };
  return {
    none: () => null,
    key,
    user: async (req) => user(await key(req), req),
    sandboxKey: async (req) => sandbox(await key(req)),
    sandboxUser: async (req) => user(sandbox(await key(req)), req),
    // Only behind the dashboard guard (guardRoutes in app.ts); requireLocalTrust fails otherwise.
    local: (req) => {
      requireLocalTrust(req);
      return { accountId: DEFAULT_ACCOUNT_ID };
    },
  };
}

export { sandboxOnly };
