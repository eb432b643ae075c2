import type { ApprovalRules, Merchant } from '../schemas/resources.js';
import type { PasskeyStep } from '../services/passkeys.js';
import { formatMoney, type Html, html } from './html.js';

/** The live page's passkey part: sign with the one the user has, or create one. */
function passkeyPart(step: PasskeyStep, appName: string): Html {
  if (step.kind === 'sign') {
    return html`<input type="hidden" name="passkey" value="">
      <p>You already have a passkey for these purchases: approving asks for it, so no one else can approve for you.</p>
      <p role="status" data-passkey-status></p>`;
  }
  if (step.kind !== 'create') return html``;
  return html`<fieldset><legend>Protect large orders with a passkey</legend>
      <p>With a passkey, an order above the amount you confirm yourself goes through only when you
        confirm it on this device (fingerprint, face or device PIN), never by ${appName} alone.
        Without one, such orders cannot be confirmed.</p>
      <input type="hidden" name="passkey" value="">
      <button type="button" data-passkey-create>Create a passkey</button>
      <p role="status" data-passkey-status></p>
    </fieldset>`;
}

const passkeyForm = (step: PasskeyStep): Html =>
  step.kind === 'sign' || step.kind === 'create'
    ? html` data-passkey="${step.kind === 'sign' ? 'get' : 'create'}" data-passkey-options="${JSON.stringify(step.options)}"`
    : html``;

function ruleLines(rules: ApprovalRules, allowed: Merchant[]): Html[] {
  const currency = rules.currency ?? 'USD';
  const amount = (n: number) => formatMoney({ amount: n, currency });
  const lines: Html[] = [];
  if (rules.max_per_order !== undefined)
    lines.push(html`<li>Up to <strong>${amount(rules.max_per_order)}</strong> per order.</li>`);
  if (rules.max_per_day !== undefined) {
    lines.push(html`<li>Up to <strong>${amount(rules.max_per_day)}</strong> in total in any 24 hours.</li>`);
  }
  if (rules.confirm_above !== undefined) {
    lines.push(
      html`<li>You confirm any order over <strong>${amount(rules.confirm_above)}</strong> yourself.</li>`,
    );
  }
  if (allowed.length > 0) lines.push(html`<li>Only from: ${allowed.map((m) => m.name).join(', ')}.</li>`);
  if (lines.length === 0)
    lines.push(html`<li>No spending limits were set: any amount, from any supported store.</li>`);
  return lines;
}

export function approvalPage(v: {
  appName: string;
  clientUserId: string;
  rules: ApprovalRules;
  stores: Merchant[];
  allowed: Merchant[];
  token: string;
  formToken: string;
  expiresAt: string;
  passkey: PasskeyStep;
}): Html {
  const stores = v.stores.length
    ? html`<fieldset><legend>Connect your store accounts</legend>
        <p class="muted">Connecting lets ${v.appName} order from these stores with your account.</p>
        ${v.stores.map(
          (m) =>
            html`<div><input type="checkbox" id="connect-${m.id}" name="connect" value="${m.id}" checked>
              <label for="connect-${m.id}">${m.name} <span class="muted">(${m.domain})</span></label></div>`,
        )}
      </fieldset>`
    : html``;
  return html`<h1>${v.appName} wants to buy things for you</h1>
    <p>If you approve, <strong>${v.appName}</strong> can place orders in online stores on your behalf,
      within these limits:</p>
    <h2 id="rules">Spending limits</h2>
    <ul aria-labelledby="rules">${ruleLines(v.rules, v.allowed)}</ul>
    <form method="post" action="/hosted/approve"${passkeyForm(v.passkey)}>
      <input type="hidden" name="token" value="${v.token}">
      <input type="hidden" name="form_token" value="${v.formToken}">
      ${stores}
      ${passkeyPart(v.passkey, v.appName)}
      <div class="actions">
        <button class="primary" type="submit" name="decision" value="approve">Approve</button>
        <button type="submit" name="decision" value="decline">Decline</button>
      </div>
    </form>
    <p class="muted">This request expires at ${v.expiresAt}. You can say no; nothing is bought without approval.</p>`;
}
