import type { CommerceContext } from '../context.js';
import type { CheckoutRecord } from '../db/checkouts-store.js';
import { commerceStores } from '../db/stores.js';
import { type CardTokenizer, judgeTokenizer } from '../merchants/ucp/payment-handlers.js';
import type { Checkout, Merchant } from '../schemas/resources.js';
import { awaitingCard } from './checkouts.js';
import { getMerchant } from './merchants.js';
import { toCheckout } from './serialize.js';
import { newToken, tokenHash } from './tokens.js';

/** What the buyer's browser sends to the tokenizer with the card: the store's checkout session it is for. */
export interface TokenBinding {
  checkout_id: string;
  identity?: { access_token: string };
}

export type CardPaymentView =
  | { state: 'done' }
  | {
      state: 'pending';
      checkout: Checkout;
      merchant: Merchant;
      formToken: string;
      tokenizer: CardTokenizer;
      binding: TokenBinding;
    };

/**
 * The hosted pay page for a checkout whose store takes a card through its tokenization handler.
 * Each render gets a fresh form token (an older tab's stops working). The tokenizer is judged
 * again here, as it was when the store's profile was read: only a URL that passes is ever put in
 * the page, and its origin is the only one the page's CSP lets the browser connect to.
 */
export async function viewCardPayment(ctx: CommerceContext, token: string): Promise<CardPaymentView> {
  const s = commerceStores(ctx.db);
  let c: CheckoutRecord | undefined;
  let form: ReturnType<typeof newToken> | undefined;
  // As on the confirm page: the form token is written on the version read, two tries.
  for (let attempt = 0; attempt < 2 && !form; attempt++) {
    c = await s.checkouts.findByConfirmToken(tokenHash(token));
    if (!awaitingCard(c)) return { state: 'done' };
    const fresh = newToken('form', c.env);
    if (await s.checkouts.save({ ...c, form_token_hash: fresh.hash })) form = fresh;
  }
  if (!c || !form) return { state: 'done' };
  const data = c.store_session?.data ?? {};
  const declared = data.card as CardTokenizer | undefined;
  const judged = declared
    ? judgeTokenizer(
        { handler_id: declared.handler_id, endpoint: declared.endpoint, identity: declared.identity },
        ctx.config.storesAllowPrivate,
      )
    : null;
  if (!judged?.ok || typeof data.id !== 'string') return { state: 'done' };
  const { tokenizer } = judged;
  return {
    state: 'pending',
    checkout: toCheckout(c),
    merchant: await getMerchant(s, c.env, c.merchant_id),
    formToken: form.token,
    tokenizer,
    binding: {
      checkout_id: data.id,
      ...(tokenizer.identity ? { identity: { access_token: tokenizer.identity } } : {}),
    },
  };
}
