import type { CommerceEnv } from '../db/api-keys-store.js';
import type { CardTokenizer } from '../merchants/ucp/payment-handlers.js';
import type { Checkout, Merchant } from '../schemas/resources.js';
import type { TokenBinding } from '../services/card-payments.js';
import { orderSummary, sandboxNote } from './confirm-page.js';
import { formatMoney, type Html, html } from './html.js';

/** The pay page's script, from this origin (the CSP names no CDN). */
export const PAY_SCRIPT_PATH = '/hosted/pay.js';

/** The largest token the page accepts from a tokenizer, and the form from the page. */
export const MAX_PAYMENT_TOKEN = 2048;
/** A token as the page takes it: printable ASCII, no spaces, bounded. */
export const isPaymentToken = (t: string) => t.length <= MAX_PAYMENT_TOKEN && /^[\x21-\x7e]+$/.test(t);

/**
 * The card's brand and last four digits, as the page's script read them off the number it sent to
 * the tokenizer: display data (never the number), which a UCP 2026-01-11 store's card instrument
 * requires. Null when the form did not carry a well-formed pair.
 */
export function cardDisplay(brand: string, last4: string): { brand: string; last_digits: string } | null {
  return /^[a-z]{1,20}$/.test(brand) && /^[0-9]{4}$/.test(last4) ? { brand, last_digits: last4 } : null;
}

/**
 * The card form. Its card fields have no `name`, so the form itself can never post them here:
 * the script sends them to the tokenizer and posts only the token it gets back. Without
 * JavaScript the page says so and nothing is sent.
 */
export function payPage(v: {
  checkout: Checkout;
  merchant: Merchant;
  token: string;
  formToken: string;
  tokenizer: CardTokenizer;
  binding: TokenBinding;
}): Html {
  const c = v.checkout;
  const total = formatMoney(c.totals.total);
  return html`<h1>Pay ${v.merchant.name}</h1>
    ${orderSummary(c)}
    <p class="muted">Your card goes from this page straight to ${v.merchant.name}'s payment provider
      (${v.tokenizer.origin}); this service never sees the card number.</p>
    <form method="post" action="/hosted/pay" data-tokenizer="${v.tokenizer.endpoint}/tokenize"
      data-binding="${JSON.stringify(v.binding)}">
      <input type="hidden" name="token" value="${v.token}">
      <input type="hidden" name="form_token" value="${v.formToken}">
      <input type="hidden" name="payment_token" value="">
      <input type="hidden" name="display_brand" value="">
      <input type="hidden" name="display_last4" value="">
      <p><label>Name on card<br><input id="card-name" autocomplete="cc-name" required></label></p>
      <p><label>Card number<br><input id="card-number" inputmode="numeric" autocomplete="cc-number" required></label></p>
      <p><label>Expiry month (1-12)<br><input id="card-exp-month" inputmode="numeric" autocomplete="cc-exp-month" size="2" required></label>
        <label>Expiry year<br><input id="card-exp-year" inputmode="numeric" autocomplete="cc-exp-year" size="4" required></label>
        <label>Security code<br><input id="card-cvc" inputmode="numeric" autocomplete="cc-csc" size="4" required></label></p>
      <div class="actions"><button class="primary" type="submit">Pay ${total}</button></div>
      <p role="status" data-pay-status></p>
    </form>
    <noscript><p class="error">Paying by card needs JavaScript: the card goes from this page straight to the store's payment provider.</p></noscript>`;
}

/** What the buyer sees after paying: where the order really is. */
export function paidPage(v: { checkout: Checkout; merchant: Merchant; env: CommerceEnv | null }): {
  title: string;
  body: Html;
} {
  const c = v.checkout;
  const status = (words: string) =>
    html`<p class="muted" id="status" data-status="${c.status}">Order status: ${words}</p>`;
  const page = (title: string, ...parts: Html[]) => ({
    title,
    body: html`<h1>${title}</h1>${parts}${sandboxNote(v.env)}`,
  });
  if (c.status === 'completed') {
    return page(
      'Order placed',
      html`<p>${v.merchant.name} took your payment of <strong>${formatMoney(c.totals.total)}</strong>.</p>`,
      status('placed with the store.'),
      html`<p>You can close this page.</p>`,
    );
  }
  if (c.status === 'confirming' || c.status === 'requires_user_action') {
    return page(
      'Order being placed',
      status(c.status === 'confirming' ? 'being placed with the store.' : 'waiting for you.'),
      html`<p>${c.next_action?.description ?? `${v.merchant.name} has not answered yet. Go back to the app: it will tell you when the store has the order.`}</p>`,
    );
  }
  return page(
    'The order was not placed',
    status('not placed.'),
    html`<p>${c.error?.message ?? 'The store did not take the order.'}</p><p>Go back to the app to try again.</p>`,
  );
}

/**
 * The pay page's script. On submit it reads the card fields, posts them as UCP's card credential
 * with the binding the page carries to the tokenizer's `/tokenize` (the only origin the CSP lets it
 * reach), clears the fields, and posts the form with the token alone. A tokenizer that refuses,
 * or answers anything but a short token, gets a message and nothing is posted here.
 */
export const PAY_SCRIPT = `(() => {
  'use strict';
  const form = document.querySelector('form[data-tokenizer]');
  if (!form) return;
  const status = form.querySelector('[data-pay-status]');
  const say = (text) => { status.textContent = text; };
  const ids = ['card-name', 'card-number', 'card-exp-month', 'card-exp-year', 'card-cvc'];
  // The card network from the number's leading digits (display data for the store, like the last four).
  const brandOf = (n) =>
    /^4/.test(n) ? 'visa'
    : /^(5[1-5]|2[2-7])/.test(n) ? 'mastercard'
    : /^3[47]/.test(n) ? 'amex'
    : /^(6011|65)/.test(n) ? 'discover'
    : 'card';
  const value = (id) => document.getElementById(id).value.trim();
  let sending = false;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (sending) return;
    const number = value('card-number').replace(/[ -]/g, '');
    const month = Number(value('card-exp-month'));
    let year = Number(value('card-exp-year'));
    if (year >= 0 && year < 100) year += 2000;
    const cvc = value('card-cvc');
    if (!/^[0-9]{12,19}$/.test(number)) return say('Enter the card number (12 to 19 digits).');
    if (!Number.isInteger(month) || month < 1 || month > 12) return say('Enter the expiry month, 1 to 12.');
    if (!Number.isInteger(year) || year < 2000 || year > 2100) return say('Enter the expiry year.');
    if (!/^[0-9]{3,4}$/.test(cvc)) return say('Enter the security code (3 or 4 digits).');
    const credential = { type: 'card', card_number_type: 'fpan', number, expiry_month: month,
      expiry_year: year, cvc };
    if (value('card-name')) credential.name = value('card-name');
    sending = true;
    say("Sending your card to the store's payment provider...");
    try {
      const res = await fetch(form.dataset.tokenizer, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ credential, binding: JSON.parse(form.dataset.binding) }),
        credentials: 'omit', cache: 'no-store', redirect: 'error', referrerPolicy: 'no-referrer',
      });
      const text = await res.text();
      if (!res.ok || text.length > 65536) throw new Error('refused');
      const token = JSON.parse(text).token;
      if (typeof token !== 'string' || token.length > ${MAX_PAYMENT_TOKEN} || !/^[\\x21-\\x7e]+$/.test(token))
        throw new Error('unreadable');
      for (const id of ids) document.getElementById(id).value = '';
      form.elements.payment_token.value = token;
      form.elements.display_brand.value = brandOf(number);
      form.elements.display_last4.value = number.slice(-4);
      say('Placing your order...');
      form.submit();
    } catch {
      sending = false;
      say("The store's payment provider did not accept the card. Check it and try again.");
    }
  });
})();
`;
