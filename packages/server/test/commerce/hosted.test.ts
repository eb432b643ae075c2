import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE } from '../../src/platform/clock.js';
import {
  ADDRESS,
  as,
  BUYER,
  type Commerce,
  makeKey,
  PROTOCOL,
  sandboxUser,
  startCommerce,
} from './helpers.js';
import { fromHtml, openForm, submit } from './hosted-forms.js';

describe('hosted approval flow', () => {
  let c: Commerce;
  let evilKey: string;
  beforeAll(async () => {
    c = await startCommerce();
    evilKey = await makeKey(c.svc, 'sandbox', '<script>alert("x")</script> & Co');
  });
  afterAll(() => c.close());

  const create = (key: string, body: Record<string, unknown> = {}) =>
    as(c.svc, key)('POST', '/v1/approval_tokens', {
      client_user_id: 'hosted-user',
      redirect_uri: 'https://app.example/callback?state=abc',
      rules: {
        max_per_order: 5000,
        max_per_day: 20000,
        confirm_above: 3000,
        allowed_merchants: ['sandbox-protocol'],
      },
      merchant_ids: ['sandbox-members', 'sandbox-corner'],
      ...body,
    });

  it('creates an approval token that lasts 30 minutes and serves a real, escaped, accessible page', async () => {
    const res = await create(evilKey);
    expect(res.status).toBe(201);
    expect(Date.parse(res.body.expiration) - c.svc.clock.now().getTime()).toBe(30 * MINUTE);
    expect(res.body.hosted_url.startsWith(`${c.svc.url}/hosted/approve?token=`)).toBe(true);
    const { res: page, page: html } = await openForm(res.body.hosted_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(html).toContain('<html lang="en">');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co');
    expect(html).toContain('$50.00');
    expect(html).toContain('$200.00');
    expect(html).toContain('$30.00');
    expect(html).toContain('Sandbox Protocol Shop');
    expect(html).toContain('<label for="connect-sandbox-members">Sandbox Members Club');
  });

  it('approving redirects with public_token, connects the ticked stores, and the token exchanges once', async () => {
    const approval = await create(c.sandboxKey);
    const form = await openForm(approval.body.hosted_url);
    const res = await submit(c.svc.url, form.action as string, [
      ...form.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ['connect', 'sandbox-members'],
      ['connect', 'sandbox-megamart'], // not offered: ignored
      ['decision', 'approve'],
    ]);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') as string);
    expect(location.origin + location.pathname).toBe('https://app.example/callback');
    expect(location.searchParams.get('state')).toBe('abc');
    const publicToken = location.searchParams.get('public_token') as string;
    expect(publicToken).toMatch(/^public-sandbox-/);

    const app = as(c.svc, c.sandboxKey);
    const ex = await app('POST', '/v1/approval_tokens/exchange', { public_token: publicToken });
    expect(ex.status).toBe(200);
    const user = as(c.svc, c.sandboxKey, ex.body.user_token);
    const cons = (await user('GET', '/v1/connections')).body.connections;
    expect(cons.map((x: any) => [x.merchant_id, x.status])).toEqual([['sandbox-members', 'active']]);
    // The approved rules travel with the user token.
    const other = await user('POST', '/v1/checkouts', {
      product_url: 'https://corner-store.sandbox.test/p/x',
    });
    expect(other.body.error.code).toBe('MERCHANT_NOT_ALLOWED');
    expect((await app('POST', '/v1/approval_tokens/exchange', { public_token: publicToken })).status).toBe(
      400,
    );

    // The same page cannot be answered twice.
    const again = await submit(c.svc.url, '/hosted/approve', [
      ...form.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ['decision', 'approve'],
    ]);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('already used');
    expect((await fetch(approval.body.hosted_url)).status).toBe(410);
  });

  it('declining redirects with error=access_denied', async () => {
    const approval = await create(c.sandboxKey);
    const form = await openForm(approval.body.hosted_url);
    const res = await submit(c.svc.url, '/hosted/approve', [
      ...form.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ['decision', 'decline'],
    ]);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') as string);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('public_token')).toBeNull();
  });

  it('refuses a form without the one-time form token (CSRF) and an out-of-date form', async () => {
    const approval = await create(c.sandboxKey);
    const token = new URL(approval.body.hosted_url).searchParams.get('token') as string;
    const forged = await submit(c.svc.url, '/hosted/approve', [
      ['token', token],
      ['form_token', 'form-sandbox-guess'],
      ['decision', 'approve'],
    ]);
    expect(forged.status).toBe(409);
    const old = await openForm(approval.body.hosted_url);
    await openForm(approval.body.hosted_url); // a newer render replaces the form token
    const stale = await submit(c.svc.url, '/hosted/approve', [
      ...old.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ['decision', 'approve'],
    ]);
    expect(stale.status).toBe(409);
  });

  it('shows a clear page for an expired or unknown link', async () => {
    const approval = await create(c.sandboxKey);
    c.svc.clock.advance(30 * MINUTE);
    const res = await fetch(approval.body.hosted_url);
    expect(res.status).toBe(410);
    expect(await res.text()).toContain('expired');
    const unknown = await fetch(`${c.svc.url}/hosted/approve?token=approval-sandbox-nope`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('not valid');
  });

  it('validates client_user_id, rules, merchant_ids and redirect_uri', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ client_user_id: 'x'.repeat(201) }, 'client_user_id'],
      [{ merchant_ids: Array.from({ length: 51 }, (_, i) => `m${i}`) }, 'merchant_ids'],
      [{ merchant_ids: ['nope'] }, 'merchant_ids[0]'],
      [{ rules: { max_per_order: 'ten' } }, 'rules.max_per_order'],
      [{ rules: { spend: 1 } }, 'rules.spend'],
      [{ redirect_uri: 'http://app.example/cb' }, 'redirect_uri'],
      [{ redirect_uri: 'javascript:alert(1)' }, 'redirect_uri'],
      [{ redirect_uri: undefined }, 'redirect_uri'],
    ];
    for (const [body, param] of cases) {
      const res = await create(c.sandboxKey, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
    expect((await create(c.sandboxKey, { redirect_uri: 'http://localhost:3000/cb' })).status).toBe(201);
  });
});

describe('hosted confirm page for totals above confirm_above', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  it('confirms by form post, then the app can confirm; declining fails the checkout', async () => {
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { rules: { confirm_above: 1000 } });
    const make = async () =>
      (
        await call('POST', '/v1/checkouts', {
          product_url: `${PROTOCOL}/price-4200-desk`,
          buyer: BUYER,
          shipping_address: ADDRESS,
        })
      ).body;
    const chk = await make();
    const form = await openForm(chk.next_action.url);
    expect(form.res.status).toBe(200);
    expect(form.page).toContain('$42.00');
    const res = await submit(c.svc.url, '/hosted/confirm', [
      ...form.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ['decision', 'approve'],
    ]);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('the order is not placed yet');
    const after = (await call('GET', `/v1/checkouts/${chk.id}`)).body;
    expect(after.status).toBe('ready_to_confirm');
    expect(after.user_confirmed_at).not.toBeNull();
    expect((await fetch(chk.next_action.url)).status).toBe(410);
    expect((await call('POST', `/v1/checkouts/${chk.id}/confirm`)).body.status).toBe('completed');

    const declined = await make();
    const f2 = await openForm(declined.next_action.url);
    await submit(c.svc.url, '/hosted/confirm', [
      ...f2.inputs.map(([k, v]) => [k, fromHtml(v)] as [string, string]),
      ['decision', 'decline'],
    ]);
    const failed = (await call('GET', `/v1/checkouts/${declined.id}`)).body;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'USER_DECLINED' } });
  });
});
