import { AppError } from '../../platform/errors.js';
import type { CommerceContext, Tenant } from '../context.js';
import type { CommerceStores } from '../db/stores.js';
import { commerceStores } from '../db/stores.js';
import type { ApprovalRules } from '../schemas/resources.js';
import { newToken, tokenHash } from './tokens.js';

/** How long a public token from the hosted page (or the sandbox shortcut) can be exchanged. */
export const PUBLIC_TOKEN_TTL_MS = 30 * 60_000;

export interface UserGrant {
  userId: string;
  rules: ApprovalRules;
}

/** The app's own id for its user maps to one `usr_` per account and environment. */
export async function ensureUser(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock' | 'ids'>,
  tenant: Tenant,
  clientUserId: string,
): Promise<string> {
  const existing = await s.users.findByClientId(tenant, clientUserId);
  if (existing) return existing.id;
  // ON CONFLICT: a concurrent request may have made the same user since the read; then it is used.
  await s.users.insertIfMissing({
    id: ctx.ids.make('usr'),
    account_id: tenant.accountId,
    env: tenant.env,
    client_user_id: clientUserId,
    created_at: ctx.clock.now().toISOString(),
  });
  const user = await s.users.findByClientId(tenant, clientUserId);
  if (!user) throw new Error(`user ${clientUserId} missing right after it was written`);
  return user.id;
}

export async function issuePublicToken(
  s: CommerceStores,
  ctx: Pick<CommerceContext, 'clock'>,
  tenant: Tenant,
  userId: string,
  rules: ApprovalRules,
): Promise<string> {
  const { token, hash } = newToken('public', tenant.env);
  const now = ctx.clock.now();
  await s.users.insertPublicToken({
    token_hash: hash,
    account_id: tenant.accountId,
    env: tenant.env,
    user_id: userId,
    rules,
    expires_at: new Date(now.getTime() + PUBLIC_TOKEN_TTL_MS).toISOString(),
    created_at: now.toISOString(),
  });
  return token;
}

/** A public token works once, within its lifetime, for the account and environment that made it. */
export async function exchangePublicToken(
  ctx: CommerceContext,
  tenant: Tenant,
  publicToken: string,
): Promise<{ user_token: string; user_id: string }> {
  return ctx.db.transaction(async (tx) => {
    const s = commerceStores(tx);
    const hash = tokenHash(publicToken);
    const found = await s.users.findPublicToken(tenant, hash);
    const now = ctx.clock.now().toISOString();
    if (!found) throw invalidPublicToken('This public_token is not valid for this API key.');
    if (found.used_at)
      throw invalidPublicToken('This public_token was already exchanged; a public token works once.');
    if (found.expires_at <= now) {
      throw invalidPublicToken(
        'This public_token has expired; public tokens last 30 minutes. Start a new approval.',
      );
    }
    if (!(await s.users.usePublicToken(hash, now))) {
      throw invalidPublicToken('This public_token was already exchanged; a public token works once.');
    }
    const { token, hash: userHash } = newToken('user', tenant.env);
    await s.users.insertToken({
      token_hash: userHash,
      user_id: found.user_id,
      account_id: tenant.accountId,
      env: tenant.env,
      rules: found.rules,
      created_at: now,
    });
    return { user_token: token, user_id: found.user_id };
  });
}

const invalidPublicToken = (message: string) =>
  new AppError(400, 'INVALID_PUBLIC_TOKEN', message, { param: 'public_token' });

export const USER_TOKEN_HEADER = 'Service-User-Token';

/** Resolves `Service-User-Token` to the user it was issued for, within the API key's tenant. */
export async function authenticateUser(
  ctx: Pick<CommerceContext, 'db'>,
  tenant: Tenant,
  token: string | undefined,
): Promise<UserGrant> {
  if (!token) {
    throw new AppError(
      401,
      'USER_TOKEN_REQUIRED',
      `This endpoint acts for a user: send their token as '${USER_TOKEN_HEADER}: user-...'. Get one through the approval flow (POST /v1/approval_tokens).`,
    );
  }
  const found = token.startsWith('user-')
    ? await commerceStores(ctx.db).users.findToken(tokenHash(token))
    : undefined;
  // A token from another account or environment is as unknown as a made-up one.
  if (!found || found.account_id !== tenant.accountId || found.env !== tenant.env) {
    throw new AppError(
      401,
      'INVALID_USER_TOKEN',
      `The ${USER_TOKEN_HEADER} is not valid for this API key's account and environment.`,
    );
  }
  return { userId: found.user_id, rules: found.rules as ApprovalRules };
}
