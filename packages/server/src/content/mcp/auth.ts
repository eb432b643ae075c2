import { bearerToken } from '../../platform/api-key-hash.js';
import { getOrBuild } from '../../platform/get-or-build.js';
import { inTheApp } from '../app-pages.js';
import type { ContentContext } from '../context.js';
import { findContentApiKey } from '../services/api-keys.js';
import type { McpSession } from './call-tool.js';

export type AuthOutcome =
  | { ok: true; session: McpSession }
  | { ok: false; wwwAuthenticate: string; message: string };

const REALM = 'realm="svc"';

/** Built once per app rather than an object per call. */
const keyDepsByApp = new WeakMap<ContentContext, Parameters<typeof findContentApiKey>[1]>();
const keyDeps = (ctx: ContentContext) =>
  getOrBuild(keyDepsByApp, ctx, () => ({ clock: ctx.clock.real, keyCache: ctx.keyCache }));

/**
 * `Authorization: Bearer svc_…`, looked up by SHA-256 (from this instance's key cache while the
 * key epoch's lease is fresh, see services/key-cache.ts; a revoke returns only once every instance
 * has dropped its cache, so it is effective on the next request) and stamped as last used. RFC 6750: no credential gets a bare
 * challenge; a presented but unusable one gets `error="invalid_token"`.
 *
 * Not async: a key the cache answers for (most calls) is settled here, without a promise; only a
 * lookup or a stamp in the database hands back one, which the caller awaits.
 */
export function authenticate(
  ctx: ContentContext,
  header: string | undefined,
): AuthOutcome | Promise<AuthOutcome> {
  if (!header)
    return {
      ok: false,
      wwwAuthenticate: `Bearer ${REALM}`,
      message: `Missing API key. Send "Authorization: Bearer svc_..." with a key made in ${inTheApp('apiKeys', ctx.config)} or with POST /v1/api-keys.`,
    };
  const token = bearerToken(header);
  if (!token) return refused(ctx, token);
  // The last-used stamp is real time: an advance of the sandbox clock must not date it ahead.
  const key = findContentApiKey(ctx.stores, keyDeps(ctx), token);
  if (key instanceof Promise)
    return key.then((found) => (found ? { ok: true, session: { key: found } } : refused(ctx, token)));
  return key ? { ok: true, session: { key } } : refused(ctx, token);
}

function refused(ctx: ContentContext, token: string | null): AuthOutcome {
  const message = token
    ? `The API key is not valid: it is unknown or has been revoked. Create a new one in ${inTheApp('apiKeys', ctx.config)} or with POST /v1/api-keys.`
    : 'The Authorization header must be "Bearer svc_..." followed by an API key.';
  return {
    ok: false,
    wwwAuthenticate: `Bearer ${REALM}, error="invalid_token", error_description="${token ? 'unknown or revoked key' : 'malformed credentials'}"`,
    message,
  };
}
