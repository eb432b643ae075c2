import type { CommerceEnv } from '../db/api-keys-store.js';
import type { Checkout, Merchant } from '../schemas/resources.js';
import type { PasskeyStep } from '../services/passkeys.js';
import { formatMoney, type Html, html } from './html.js';

/** The page's script, for pages whose form needs a passkey. */
export const PASSKEY_SCRIPT_PATH = '/hosted/passkey.js';

/** Whether a page runs the passkey script: only a live page that asks for or makes one. */
export const needsScript = (passkey: PasskeyStep) => passkey.kind === 'sign' || passkey.kind === 'create';

function confirmButtons(v: { passkey: PasskeyStep; total: string }): Html {
  const decline = html`<button type="submit" name="decision" value="decline">Do not buy</button>`;
  if (v.passkey.kind === 'missing') {
    return html`<p id="passkey-missing">Confirming a total this large needs your passkey, and you have
        not created one for these purchases yet. Go back to the app: it can send you through its approval
        page again, where you create a passkey on this device. Then open this link again.</p>
      <div class="actions">${decline}</div>`;
  }
  const approve = html`<button class="primary" type="submit" name="decision" value="approve">Confirm ${v.total}</button>`;
  if (v.passkey.kind !== 'sign') return html`<div class="actions">${approve}${decline}</div>`;
  return html`<input type="hidden" name="passkey" value="">
    <p class="muted">Confirming asks for your passkey (your fingerprint, face or device PIN), so only you can approve this total.</p>
    <div class="actions">${approve}${decline}</div>
    <p role="status" data-passkey-status></p>`;
}

/** The order as the store priced it: items, then shipping, tax and the total. */
export function orderSummary(c: Checkout): Html {
  const t = c.totals;
  return html`<table>
      <caption class="muted">Order summary</caption>
      <thead><tr><th scope="col">Item</th><th scope="col">Quantity</th><th scope="col">Price each</th></tr></thead>
      <tbody>${c.line_items.map(
        (li) =>
          html`<tr><td>${li.title}</td><td>${li.quantity}</td><td>${formatMoney(li.unit_price)}</td></tr>`,
      )}</tbody>
    </table>
    <dl>
      <dt>Subtotal</dt><dd>${formatMoney(t.subtotal)}</dd>
      <dt>Shipping</dt><dd>${t.shipping ? formatMoney(t.shipping) : 'not known yet'}</dd>
      <dt>Tax</dt><dd>${t.tax ? formatMoney(t.tax) : 'not known yet'}</dd>
      <dt><strong>Total</strong></dt><dd><strong>${formatMoney(t.total)}</strong></dd>
    </dl>`;
}

export function confirmPage(v: {
  checkout: Checkout;
  merchant: Merchant;
  token: string;
  formToken: string;
  passkey: PasskeyStep;
}): Html {
  const c = v.checkout;
  const t = c.totals;
  const sign =
    v.passkey.kind === 'sign'
      ? html` data-passkey="get" data-passkey-options="${JSON.stringify(v.passkey.options)}"`
      : html``;
  return html`<h1>Confirm your order at ${v.merchant.name}</h1>
    <p>The total is above the amount you asked to confirm yourself.</p>
    ${orderSummary(c)}
    ${c.shipping_address ? html`<p>Ships to ${c.shipping_address.name}, ${c.shipping_address.city}, ${c.shipping_address.country}.</p>` : html``}
    <form method="post" action="/hosted/confirm"${sign}>
      <input type="hidden" name="token" value="${v.token}">
      <input type="hidden" name="form_token" value="${v.formToken}">
      ${confirmButtons({ passkey: v.passkey, total: formatMoney(t.total) })}
    </form>`;
}

/** A line for test-mode pages, so a sandbox flow never reads like a real purchase. */
export const sandboxNote = (env: CommerceEnv | null): Html =>
  env === 'sandbox'
    ? html`<p class="muted">Test mode (sandbox): no real order is placed and no money is charged.</p>`
    : html``;

/**
 * What the shopper sees after approving the total: where the checkout really is. Approving here
 * does not place the order; the app does that next, unless the store needs something more first.
 */
export function confirmedPage(v: { checkout: Checkout; merchant: Merchant; env: CommerceEnv | null }): {
  title: string;
  body: Html;
} {
  const c = v.checkout;
  const total = formatMoney(c.totals.total);
  const approved = html`<p>You approved the total of <strong>${total}</strong> at ${v.merchant.name}.</p>`;
  const status = (words: string) =>
    html`<p class="muted" id="status" data-status="${c.status}">Order status: ${words}</p>`;
  const page = (title: string, ...parts: Html[]) => ({
    title,
    body: html`<h1>${title}</h1>${parts}${sandboxNote(v.env)}`,
  });
  switch (c.status) {
    case 'completed':
      return page(
        'Order placed',
        approved,
        status('placed with the store.'),
        html`<p>You can close this page.</p>`,
      );
    case 'confirming':
      return page('Order being placed', approved, status('being placed with the store.'));
    case 'requires_user_action':
      return page(
        'Total approved: one more step',
        approved,
        status('waiting for you.'),
        html`<p>${c.next_action?.description ?? 'The store needs something more before the order can be placed.'} Go back to the app to finish.</p>`,
      );
    case 'failed':
    case 'canceled':
      return page(
        'The order was not placed',
        approved,
        status(c.status === 'failed' ? 'not placed.' : 'canceled.'),
        html`<p>Nothing was bought. Go back to the app to try again.</p>`,
      );
    default:
      return page(
        'Total approved: the order is not placed yet',
        approved,
        status('ready for the app to place it.'),
        html`<p>The app places the order next; it will tell you when the store has it. You can close this page.</p>`,
      );
  }
}
