import type { CommerceContext } from '../context.js';
import type { CheckoutRecord } from '../db/checkouts-store.js';
import { commerceStores } from '../db/stores.js';
import { adapterFor } from '../merchants/index.js';
import type { Checkout, Merchant } from '../schemas/resources.js';
import { persist, settle } from './checkout-machine.js';
import { inTransaction } from './checkouts.js';
import { getMerchant } from './merchants.js';
import { assertionOptions, type PasskeyStep, usableHere, verifyAssertion } from './passkeys.js';
import { toCheckout } from './serialize.js';
import { newToken, tokenHash } from './tokens.js';

export type ConfirmationView =
  | { state: 'done' }
  | { state: 'pending'; checkout: Checkout; merchant: Merchant; formToken: string; passkey: PasskeyStep };

const waiting = (c: { status: string; next_action: { type: string } | null } | undefined) =>
  c?.status === 'requires_user_action' && c.next_action?.type === 'user_confirmation';

/**
 * The hosted confirm page for a total above `confirm_above`. Each render gets a fresh form token
 * and, in live mode, a fresh passkey challenge for this checkout (an older tab's stops working).
 */
export async function viewConfirmation(
  ctx: CommerceContext,
  token: string,
  baseUrl: string,
): Promise<ConfirmationView> {
  const s = commerceStores(ctx.db);
  // The form token is written on the version that was read: if the checkout moved meanwhile
  // (confirmed, canceled, another render), the whole-row write would put the old state back, so
  // it is refused and the page reads again. Two tries: a third concurrent render is not a person.
  let c: CheckoutRecord | undefined;
  let form: ReturnType<typeof newToken> | undefined;
  for (let attempt = 0; attempt < 2 && !form; attempt++) {
    c = await s.checkouts.findByConfirmToken(tokenHash(token));
    if (!c || !waiting(c)) return { state: 'done' };
    const fresh = newToken('form', c.env);
    if (await s.checkouts.save({ ...c, form_token_hash: fresh.hash })) form = fresh;
  }
  if (!c || !form) return { state: 'done' };
  let passkey: PasskeyStep = { kind: 'none' };
  if (c.env === 'live') {
    const mine = usableHere(await s.passkeys.forUser(c.user_id), baseUrl);
    passkey = mine.length
      ? { kind: 'sign', options: await assertionOptions(s, ctx, 'confirm', c.id, mine, baseUrl) }
      : { kind: 'missing' };
  }
  return {
    state: 'pending',
    checkout: toCheckout(c),
    merchant: await getMerchant(s, c.env, c.merchant_id),
    formToken: form.token,
    passkey,
  };
}

export type ConfirmationOutcome =
  | { state: 'declined' | 'done' | 'stale_form' | 'passkey_missing' }
  /** Live: the form came without a valid passkey signature; nothing changed. */
  | { state: 'passkey_refused'; reason: string }
  /** The user approved the total; `checkout` is where that left it (usually still ready_to_confirm). */
  | { state: 'confirmed'; checkout: Checkout; merchant: Merchant };

/**
 * Yes moves the checkout on to ready_to_confirm; no fails it with USER_DECLINED. In live mode a
 * yes also needs the checkout's user's passkey signature over this checkout's current challenge:
 * the form alone can be fetched and posted by the app itself.
 */
export async function decideConfirmation(
  ctx: CommerceContext,
  input: { token: string; formToken: string; approve: boolean; passkey: string; baseUrl: string },
): Promise<ConfirmationOutcome> {
  return inTransaction(ctx, async (s) => {
    const before = await s.checkouts.findByConfirmToken(tokenHash(input.token));
    if (!before || !waiting(before)) return { state: 'done' };
    if (!before.form_token_hash || before.form_token_hash !== tokenHash(input.formToken)) {
      return { state: 'stale_form' };
    }
    const now = ctx.clock.now().toISOString();
    if (!input.approve) {
      await persist(s, ctx, before, {
        ...before,
        status: 'failed',
        next_action: null,
        confirm_token_hash: null,
        form_token_hash: null,
        error: {
          code: 'USER_DECLINED',
          message: 'The user declined to confirm the total on the hosted page.',
        },
      });
      return { state: 'declined' };
    }
    if (before.env === 'live') {
      if (!(await s.passkeys.forUser(before.user_id)).length) return { state: 'passkey_missing' };
      const signed = await verifyAssertion(
        s,
        ctx,
        { purpose: 'confirm', subjectId: before.id, userId: before.user_id },
        input.passkey,
      );
      if (!signed.ok) return { state: 'passkey_refused', reason: signed.reason };
    }
    const merchant = await getMerchant(s, before.env, before.merchant_id);
    const after = { ...before, user_confirmed_at: now, confirm_token_hash: null, form_token_hash: null };
    const settled = await settle(
      s,
      ctx,
      after,
      merchant,
      adapterFor(ctx, merchant, before.env),
      input.baseUrl,
    );
    await persist(s, ctx, before, settled);
    return { state: 'confirmed', checkout: toCheckout(settled), merchant };
  });
}
