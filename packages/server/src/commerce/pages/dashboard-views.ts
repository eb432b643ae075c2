import type { CheckoutRow, OrderRow, UserRow } from '../db/dashboard-store.js';
import { CHECKOUT_STATUSES, ORDER_STATUSES } from '../schemas/common.js';
import type { listDeliveries } from '../services/dashboard.js';
import { formatMoney, type Html, html } from './html.js';

type Delivery = Awaited<ReturnType<typeof listDeliveries>>[number];
type TrailEvent = { id: string; type: string; created_at: string };

/** The filter as the form shows it back: the operator's own words, never a parsed form of them. */
export interface FilterFields {
  state: string;
  user: string;
  env: string;
  from: string;
  to: string;
}

/** An instant: ISO UTC without a script, the viewer's zone with one (local-time-script.ts). */
export const when = (iso: string | null | undefined) =>
  iso ? html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>` : html`-`;

/**
 * A table that scrolls sideways inside its own box, so the page never does at 390 px. The box
 * is focusable and labelled, so a keyboard can scroll it too (axe: scrollable-region-focusable).
 */
export const scrollTable = (id: string, label: string, head: string[], rows: Html[], empty: string) =>
  html`<div class="scroll" role="region" aria-label="${label}" tabindex="0"><table id="${id}">
    <thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
    <tbody>${rows.length ? rows : html`<tr><td colspan="${head.length}" class="muted">${empty}</td></tr>`}</tbody>
  </table></div>`;

const link = (kind: 'checkouts' | 'orders', id: string) =>
  html`<a href="/dashboard/${kind}/${encodeURIComponent(id)}"><code>${id}</code></a>`;

const items = (lineItems: { title: string; quantity: number }[]) =>
  lineItems.map((i) => html`<div>${i.quantity} × ${i.title}</div>`);

const option = (value: string, chosen: string, label = value) =>
  html`<option value="${value}"${value === chosen ? html` selected` : html``}>${label}</option>`;

/** GET form: a filter is a link the operator can bookmark or share with a colleague on the machine. */
export function filterForm(f: FilterFields): Html {
  const states = [...new Set<string>([...CHECKOUT_STATUSES, ...ORDER_STATUSES])];
  return html`<form method="get" action="/dashboard" class="filters" aria-label="Filter purchases">
    <div><label for="f-state">State</label>
      <select id="f-state" name="state">${option('', f.state, 'any')}${states.map((s) => option(s, f.state))}</select></div>
    <div><label for="f-user">User (your user id)</label>
      <input id="f-user" name="user" value="${f.user}" maxlength="200" size="16"></div>
    <div><label for="f-env">Environment</label>
      <select id="f-env" name="env">${option('', f.env, 'both')}${option('sandbox', f.env)}${option('live', f.env)}</select></div>
    <div><label for="f-from">From (UTC date)</label>
      <input id="f-from" name="from" type="date" value="${f.from}"></div>
    <div><label for="f-to">To (UTC date, inclusive)</label>
      <input id="f-to" name="to" type="date" value="${f.to}"></div>
    <div class="filter-actions"><button type="submit" class="primary">Filter</button> <a href="/dashboard">Clear</a></div>
  </form>`;
}

export function purchasesSection(
  p: { checkouts: CheckoutRow[]; orders: OrderRow[]; users: UserRow[]; limit: number },
  userLink: (clientUserId: string) => string,
): Html {
  const capped = (n: number) =>
    n >= p.limit ? html` <span class="muted">(newest ${p.limit}; narrow the filter)</span>` : html``;
  return html`<h2 id="checkouts-title">Checkouts${capped(p.checkouts.length)}</h2>
    ${scrollTable(
      'checkouts',
      'Checkouts',
      ['Checkout', 'State', 'Environment', 'User', 'Items', 'Total', 'Created', 'Order'],
      p.checkouts.map(
        (c) => html`<tr><td>${link('checkouts', c.id)}</td><td>${c.status}</td><td>${c.env}</td>
          <td><a href="${userLink(c.client_user_id)}">${c.client_user_id}</a></td><td>${items(c.line_items)}</td>
          <td>${formatMoney(c.totals.total)}</td><td>${when(c.created_at)}</td>
          <td>${c.order_id ? link('orders', c.order_id) : html`-`}</td></tr>`,
      ),
      'No checkouts match.',
    )}
    <h2 id="orders-title">Orders${capped(p.orders.length)}</h2>
    ${scrollTable(
      'orders',
      'Orders',
      ['Order', 'State', 'Environment', 'User', 'Items', 'Total', 'Created', 'Checkout'],
      p.orders.map(
        (o) => html`<tr><td>${link('orders', o.id)}</td><td>${o.status}</td><td>${o.env}</td>
          <td><a href="${userLink(o.client_user_id)}">${o.client_user_id}</a></td><td>${items(o.line_items)}</td>
          <td>${formatMoney(o.totals.total)}</td><td>${when(o.created_at)}</td><td>${link('checkouts', o.checkout_id)}</td></tr>`,
      ),
      'No orders match.',
    )}
    <h2 id="users-title">Users${capped(p.users.length)}</h2>
    ${scrollTable(
      'users',
      'Users',
      ['User (your id)', 'Environment', 'Checkouts', 'Orders', 'First seen'],
      p.users.map(
        (
          u,
        ) => html`<tr><td><a href="${userLink(u.client_user_id)}">${u.client_user_id}</a></td><td>${u.env}</td>
          <td>${u.checkouts}</td><td>${u.orders}</td><td>${when(u.created_at)}</td></tr>`,
      ),
      'No users match.',
    )}`;
}

/** An action's outcome, shown once after the redirect that follows a form post. */
export interface Notice {
  ok?: string;
  error?: string;
}

export const noticeLines = (n: Notice) =>
  html`${n.ok ? html`<p role="status">${n.ok}</p>` : html``}${n.error ? html`<p role="alert" class="error">${n.error}</p>` : html``}`;

/**
 * The deliveries, each with a Resend button when `resendFrom` names the page the table is on:
 * the form carries that page back (`return_to`) so the person lands where they pressed it.
 */
export function deliveriesTable(deliveries: Delivery[], resendFrom?: string): Html {
  const resend = resendFrom !== undefined;
  return scrollTable(
    'deliveries',
    'Webhook deliveries',
    ['Event', 'Endpoint', 'Status', 'Attempts', 'Next retry', ...(resend ? [''] : [])],
    deliveries.map(
      (
        d,
      ) => html`<tr><td>${d.event_type}<br><code>${d.event_id}</code></td><td><code>${d.url}</code></td><td>${d.status}</td>
        <td>${d.attempts.map((a) => html`<div>#${a.attempt} ${when(a.at)}: ${a.response_status ?? ''} ${a.error ?? ''}</div>`)}</td>
        <td>${when(d.next_attempt_at)}</td>${
          resend
            ? html`<td><form method="post" action="/dashboard/events/${d.event_id}/resend">
          <input type="hidden" name="endpoint_id" value="${d.endpoint_id}"><input type="hidden" name="return_to" value="${resendFrom}"><button type="submit">Resend</button></form></td>`
            : html``
        }</tr>`,
    ),
    'No deliveries.',
  );
}

export function eventsTable(events: TrailEvent[]): Html {
  return scrollTable(
    'events',
    'Events',
    ['Event', 'Type', 'At'],
    events.map(
      (e) => html`<tr><td><code>${e.id}</code></td><td>${e.type}</td><td>${when(e.created_at)}</td></tr>`,
    ),
    'No events yet.',
  );
}

/** A definition list of one object's fields; values are escaped like everything else. */
export const facts = (rows: [string, unknown][]) =>
  html`<dl class="facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;

/**
 * A checkout's or order's webhook deliveries, with the outcome of a Resend just above them:
 * the redirect after Resend comes back to this heading (`#webhook-deliveries`).
 */
const trailDeliveries = (kind: 'checkouts' | 'orders', id: string, deliveries: Delivery[], notice: Notice) =>
  html`<h2 id="webhook-deliveries">Webhook deliveries</h2>${noticeLines(notice)}
    ${deliveriesTable(deliveries, `/dashboard/${kind}/${encodeURIComponent(id)}`)}`;

export function checkoutPage(
  t: {
    checkout: CheckoutRow;
    order: OrderRow | undefined;
    events: TrailEvent[];
    deliveries: Delivery[];
  },
  notice: Notice = {},
): Html {
  const c = t.checkout;
  return html`<p><a href="/dashboard">Back to the dashboard</a></p>
    <h1>Checkout <code>${c.id}</code></h1>
    ${facts([
      ['State', c.status],
      ['Environment', c.env],
      ['User (your id)', c.client_user_id],
      ['Product', html`<code>${c.product_url}</code>`],
      ['Items', items(c.line_items)],
      ['Total', formatMoney(c.totals.total)],
      ['Created', when(c.created_at)],
      ['Updated', when(c.updated_at)],
      ['Order', t.order ? html`${link('orders', t.order.id)} (${t.order.status})` : 'none yet'],
      [
        'Store messages',
        c.merchant_messages.length ? c.merchant_messages.map((m) => html`<div>${m}</div>`) : '-',
      ],
    ])}
    <h2>Events</h2>${eventsTable(t.events)}
    ${trailDeliveries('checkouts', c.id, t.deliveries, notice)}`;
}

export function orderPage(
  t: { order: OrderRow; events: TrailEvent[]; deliveries: Delivery[] },
  notice: Notice = {},
): Html {
  const o = t.order;
  return html`<p><a href="/dashboard">Back to the dashboard</a></p>
    <h1>Order <code>${o.id}</code></h1>
    ${facts([
      ['State', o.status],
      ['Environment', o.env],
      ['User (your id)', o.client_user_id],
      ['Store reference', o.merchant_order_ref],
      ['Items', items(o.line_items)],
      ['Total', formatMoney(o.totals.total)],
      ['Created', when(o.created_at)],
      ['Updated', when(o.updated_at)],
      ['Checkout', link('checkouts', o.checkout_id)],
    ])}
    <h2>Events</h2>${eventsTable(t.events)}
    ${trailDeliveries('orders', o.id, t.deliveries, notice)}`;
}
