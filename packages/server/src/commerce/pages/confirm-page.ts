import type { Checkout, Merchant } from '../schemas/resources.js';
import { formatMoney, type Html, html } from './html.js';

export function confirmPage(v: {
  checkout: Checkout;
  merchant: Merchant;
  token: string;
  formToken: string;
}): Html {
  const c = v.checkout;
  const t = c.totals;
  return html`<h1>Confirm your order at ${v.merchant.name}</h1>
    <p>The total is above the amount you asked to confirm yourself.</p>
    <table>
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
    </dl>
    ${c.shipping_address ? html`<p>Ships to ${c.shipping_address.name}, ${c.shipping_address.city}, ${c.shipping_address.country}.</p>` : html``}
    <form method="post" action="/hosted/confirm">
      <input type="hidden" name="token" value="${v.token}">
      <input type="hidden" name="form_token" value="${v.formToken}">
      <div class="actions">
        <button class="primary" type="submit" name="decision" value="approve">Confirm ${formatMoney(t.total)}</button>
        <button type="submit" name="decision" value="decline">Do not buy</button>
      </div>
    </form>`;
}
