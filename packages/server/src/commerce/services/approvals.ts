import { AppError, invalidRequest } from '../../platform/errors.js';
import type { CommerceContext, Tenant } from '../context.js';
import type { CommerceEnv } from '../db/api-keys-store.js';
import type { ApprovalRecord } from '../db/approvals-store.js';
import type { PasskeyRecord } from '../db/passkeys-store.js';
import { type CommerceStores, commerceStores } from '../db/stores.js';
import { hasRoute } from '../merchants/index.js';
import type { ApprovalRules, Merchant } from '../schemas/resources.js';
import { changeConnection } from './checkouts.js';
import { checkMerchantIds, getMerchant } from './merchants.js';
import {
  assertionOptions,
  type PasskeyRefusal,
  type PasskeyStep,
  registrationOptions,
  usableHere,
  verifyAssertion,
  verifyRegistration,
} from './passkeys.js';
import { newToken, tokenHash } from './tokens.js';
import { ensureUser, issuePublicToken } from './users.js';

export const APPROVAL_TTL_MS = 30 * 60_000;

export interface ApprovalInput {
  client_user_id: string;
  rules?: ApprovalRules | undefined;
  merchant_ids?: string[] | undefined;
  redirect_uri: string;
}

/** Where the user lands after deciding: https, or http on this machine for local development. */
export function checkRedirectUri(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidRequest("'redirect_uri' must be an absolute URL.", 'redirect_uri');
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw invalidRequest(
      "'redirect_uri' must use https (http is accepted only for localhost).",
      'redirect_uri',
    );
  }
  if (url.username || url.password)
    throw invalidRequest("'redirect_uri' must not carry credentials.", 'redirect_uri');
  if (url.hash) throw invalidRequest("'redirect_uri' must not have a #fragment.", 'redirect_uri');
  return url;
}

export async function normalizeRules(ctx: CommerceContext, tenant: Tenant, rules: ApprovalRules | undefined) {
  const out: ApprovalRules = { ...rules, currency: rules?.currency ?? 'USD' };
  if (out.allowed_merchants)
    await checkMerchantIds(
      commerceStores(ctx.db),
      tenant.env,
      out.allowed_merchants,
      'rules.allowed_merchants',
    );
  return out;
}

/**
 * Live routes that buy without the user's own account at the store, and why: connecting one would
 * link nothing, so the hosted page never offers it.
 */
const NO_ACCOUNT_LINK: Partial<Record<Merchant['route'], string>> = {
  browser: "its checkouts are handed to the user's browser, where they sign in to the store themselves",
  ucp: "UCP stores are bought from as a guest, and linking the user's account at the store (UCP identity linking) is not available in this version of svc-server",
};

/**
 * Why this store cannot be connected with a key of this environment, or null when it can: the
 * server must have a route to the store in that environment, the same test `changeConnection`
 * meets when the user approves.
 */
function notConnectable(m: Merchant, env: CommerceEnv): string | null {
  if (m.sandbox && env !== 'sandbox') return `${m.name} is a sandbox store; live keys cannot connect it.`;
  if (!m.sandbox && env === 'sandbox') {
    return `${m.name} is a real store; sandbox keys connect only sandbox stores (GET /v1/merchants lists them).`;
  }
  const unlinked = env === 'live' ? NO_ACCOUNT_LINK[m.route] : undefined;
  if (unlinked) return `${m.name} cannot be connected: ${unlinked}.`;
  if (hasRoute(m, env)) return null;
  return `${m.name} cannot be connected: live connections through the '${m.route}' route are not available in this version of svc-server.`;
}

/**
 * Every store offered for connecting must exist (400) and be connectable with this key (422),
 * so that the hosted page never offers one that fails when the user approves.
 */
async function checkConnectable(s: Pick<CommerceStores, 'catalog'>, env: CommerceEnv, ids: string[]) {
  for (const [i, id] of ids.entries()) {
    const param = `merchant_ids[${i}]`;
    let merchant: Merchant;
    try {
      merchant = await getMerchant(s, env, id);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      // Unknown, or a sandbox store asked for by a live key: either way not one this key can use.
      if (err.status === 404) throw invalidRequest(`'${param}': no merchant with id '${id}'.`, param);
      throw new AppError(
        422,
        'MERCHANT_NOT_SUPPORTED',
        `'${param}': '${id}' is a sandbox store; live keys cannot connect it.`,
        { param },
      );
    }
    const why = notConnectable(merchant, env);
    if (why) throw new AppError(422, 'MERCHANT_NOT_SUPPORTED', `'${param}': '${id}': ${why}`, { param });
  }
}

export async function createApproval(
  ctx: CommerceContext,
  key: Tenant & { keyId: string; name: string },
  input: ApprovalInput,
  baseUrl: string,
) {
  checkRedirectUri(input.redirect_uri);
  const rules = await normalizeRules(ctx, key, input.rules);
  const merchantIds = [...new Set(input.merchant_ids ?? [])];
  await checkConnectable(commerceStores(ctx.db), key.env, merchantIds);
  const { token, hash } = newToken('approval', key.env);
  const now = ctx.clock.now();
  const expiration = new Date(now.getTime() + APPROVAL_TTL_MS).toISOString();
  await commerceStores(ctx.db).approvals.insert({
    id: ctx.ids.make('apr'),
    token_hash: hash,
    account_id: key.accountId,
    env: key.env,
    key_id: key.keyId,
    app_name: key.name,
    client_user_id: input.client_user_id,
    rules,
    merchant_ids: merchantIds,
    redirect_uri: input.redirect_uri,
    status: 'pending',
    form_token_hash: null,
    user_id: null,
    expires_at: expiration,
    decided_at: null,
    created_at: now.toISOString(),
  });
  return {
    approval_token: token,
    expiration,
    hosted_url: `${baseUrl}/hosted/approve?token=${encodeURIComponent(token)}`,
  };
}

export type ApprovalView =
  | { state: 'missing' | 'expired' | 'used' }
  | {
      state: 'pending';
      approval: ApprovalRecord;
      rules: ApprovalRules;
      stores: Merchant[];
      allowed: Merchant[];
      formToken: string;
      passkey: PasskeyStep;
    };

async function load(ctx: CommerceContext, token: string) {
  const approval = await commerceStores(ctx.db).approvals.findByTokenHash(tokenHash(token));
  if (!approval) return { state: 'missing' as const };
  if (approval.status !== 'pending') return { state: 'used' as const };
  if (approval.expires_at <= ctx.clock.now().toISOString()) return { state: 'expired' as const };
  return { state: 'pending' as const, approval };
}

/**
 * Live approvals and passkeys: a user who already has a passkey here signs with it to approve (so
 * an app scripting this page cannot give itself new rules, or its own passkey, for that user);
 * anyone else may create one, which later confirms totals above `confirm_above`.
 */
async function approvalPasskeyStep(
  s: CommerceStores,
  ctx: CommerceContext,
  approval: ApprovalRecord,
  baseUrl: string,
): Promise<PasskeyStep> {
  if (approval.env !== 'live') return { kind: 'none' };
  const user = await s.users.findByClientId(
    { accountId: approval.account_id, env: approval.env },
    approval.client_user_id,
  );
  const existing = user ? await s.passkeys.forUser(user.id) : [];
  const here = usableHere(existing, baseUrl);
  if (here.length) {
    return { kind: 'sign', options: await assertionOptions(s, ctx, 'approve', approval.id, here, baseUrl) };
  }
  return { kind: 'create', options: await registrationOptions(s, ctx, approval, existing, baseUrl) };
}

/** What the hosted page shows. Each render issues a fresh one-time form token (and passkey challenge). */
export async function viewApproval(
  ctx: CommerceContext,
  token: string,
  baseUrl: string,
): Promise<ApprovalView> {
  const found = await load(ctx, token);
  if (found.state !== 'pending') return found;
  const { approval } = found;
  const form = newToken('form', approval.env);
  await commerceStores(ctx.db).approvals.setFormToken(approval.id, form.hash);
  const rules = approval.rules as ApprovalRules;
  const stores = commerceStores(ctx.db);
  const passkey = await approvalPasskeyStep(stores, ctx, approval, baseUrl);
  const named = async (ids: string[]) => Promise.all(ids.map((id) => getMerchant(stores, approval.env, id)));
  return {
    state: 'pending',
    approval,
    rules,
    stores: await named(await connectableIds(stores, approval)),
    allowed: await named(rules.allowed_merchants ?? []),
    formToken: form.token,
    passkey,
  };
}

/** The offered stores that can still be connected (a token made before the check may hold others). */
async function connectableIds(
  s: Pick<CommerceStores, 'catalog'>,
  approval: ApprovalRecord,
): Promise<string[]> {
  const out: string[] = [];
  for (const id of approval.merchant_ids) {
    const m = await getMerchant(s, approval.env, id).catch(() => null);
    if (m && !notConnectable(m, approval.env)) out.push(id);
  }
  return out;
}

export type Decision =
  | { state: 'missing' | 'expired' | 'used' | 'stale_form' }
  /** Live: the passkey sent with an approval was refused; nothing was decided. */
  | { state: 'passkey_refused'; reason: string }
  | { state: 'redirect'; location: string };

type NewPasskey = Omit<PasskeyRecord, 'user_id'>;

/**
 * The passkey part of a live approval: a user with a passkey here must sign this page's
 * challenge; anyone else may send a new passkey, verified here and stored by the caller.
 */
async function approvalPasskey(
  s: CommerceStores,
  ctx: CommerceContext,
  approval: ApprovalRecord,
  raw: string,
  baseUrl: string,
): Promise<PasskeyRefusal | { ok: true; created?: NewPasskey }> {
  const tenant = { accountId: approval.account_id, env: approval.env };
  const user = await s.users.findByClientId(tenant, approval.client_user_id);
  const existing = user ? usableHere(await s.passkeys.forUser(user.id), baseUrl) : [];
  if (user && existing.length) {
    return verifyAssertion(s, ctx, { purpose: 'approve', subjectId: approval.id, userId: user.id }, raw);
  }
  if (!raw) return { ok: true };
  const made = await verifyRegistration(s, ctx, approval.id, raw);
  return made.ok ? { ok: true, created: made.passkey } : made;
}

/**
 * Approve: make the user, connect the stores they ticked, and send them back with a public
 * token. Decline: send them back with `error=access_denied`, as OAuth does.
 */
export async function decideApproval(
  ctx: CommerceContext,
  input: {
    token: string;
    formToken: string;
    approve: boolean;
    connect: string[];
    /** The browser's passkey answer (JSON), or empty. */
    passkey: string;
    baseUrl: string;
  },
): Promise<Decision> {
  return ctx.db
    .transaction(async (tx): Promise<Decision> => {
      const s = commerceStores(tx);
      const approval = await s.approvals.findByTokenHash(tokenHash(input.token));
      if (!approval) return { state: 'missing' };
      if (approval.status !== 'pending') return { state: 'used' };
      const now = ctx.clock.now().toISOString();
      if (approval.expires_at <= now) return { state: 'expired' };
      const tenant: Tenant = { accountId: approval.account_id, env: approval.env };
      const location = new URL(approval.redirect_uri);
      let userId: string | null = null;
      let created: NewPasskey | undefined;
      if (input.approve && approval.env === 'live') {
        const passkey = await approvalPasskey(s, ctx, approval, input.passkey, input.baseUrl);
        if (!passkey.ok) return { state: 'passkey_refused', reason: passkey.reason };
        created = passkey.created;
      }
      if (input.approve) {
        userId = await ensureUser(s, ctx, tenant, approval.client_user_id);
      }
      const decided = await s.approvals.decide(approval.id, tokenHash(input.formToken), {
        status: input.approve ? 'approved' : 'declined',
        user_id: userId,
        at: now,
      });
      if (!decided) return { state: 'stale_form' };
      if (created && userId) await s.passkeys.insert({ ...created, user_id: userId });
      if (!input.approve || !userId) {
        location.searchParams.set('error', 'access_denied');
        return { state: 'redirect', location: location.href };
      }
      // Only stores the application offered, and that can be connected, whatever the form says.
      const offered = await connectableIds(s, approval);
      for (const merchantId of input.connect.filter((id) => offered.includes(id))) {
        await changeConnection(s, ctx, { ...tenant, userId }, merchantId, 'active', input.baseUrl);
      }
      const publicToken = await issuePublicToken(s, ctx, tenant, userId, approval.rules as ApprovalRules);
      location.searchParams.set('public_token', publicToken);
      return { state: 'redirect', location: location.href };
    })
    .finally(() => ctx.eventsWritten());
}

/** Sandbox shortcut: what approving on the hosted page would do, without the page. */
export async function sandboxPublicToken(
  ctx: CommerceContext,
  tenant: Tenant,
  input: {
    client_user_id?: string | undefined;
    rules?: ApprovalRules | undefined;
    merchant_ids?: string[] | undefined;
  },
  baseUrl: string,
): Promise<{ public_token: string }> {
  const rules = await normalizeRules(ctx, tenant, input.rules);
  const merchantIds = [...new Set(input.merchant_ids ?? [])];
  await checkConnectable(commerceStores(ctx.db), tenant.env, merchantIds);
  const token = await ctx.db.transaction(async (tx) => {
    const s = commerceStores(tx);
    const userId = await ensureUser(s, ctx, tenant, input.client_user_id ?? 'sandbox-user');
    for (const merchantId of merchantIds) {
      await changeConnection(s, ctx, { ...tenant, userId }, merchantId, 'active', baseUrl);
    }
    return issuePublicToken(s, ctx, tenant, userId, rules);
  });
  ctx.eventsWritten();
  return { public_token: token };
}
