import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADDRESS, as, BUYER, type Call, type Commerce, makeKey } from './helpers.js';
import { fromHtml, openForm, submit } from './hosted-forms.js';
import { passkeyOptions, SoftAuthenticator } from './soft-authenticator.js';
import { startLiveCommerce, ucpStores } from './ucp-helpers.js';

/**
 * Issue 18 item 11: in live mode an app fetched the hosted confirm page itself, read its form and
 * posted "approve", and an order no person saw was placed. Above confirm_above a live
 * confirmation now needs a WebAuthn signature by the user's own passkey over a one-time
 * challenge for that checkout. These tests post what a browser would, made by a software
 * authenticator (a real P-256 key), over real HTTP against the real server and a fake UCP store.
 */
describe('live confirmations above confirm_above need the user’s passkey', () => {
  let c: Commerce;
  const store = ucpStores();
  const RULES = { max_per_order: 100_000, max_per_day: 500_000, confirm_above: 1000 };

  beforeAll(async () => {
    c = await startLiveCommerce();
  });
  afterAll(async () => {
    await c.close();
  });

  /** An authenticator for the server's own site (the pages are served at the test server's address). */
  const authenticator = () => {
    const site = new URL(c.svc.url);
    return new SoftAuthenticator(site.hostname, site.origin);
  };

  /** The form's fields as the page rendered them, with some replaced (the passkey the script fills in). */
  const fieldsOf = (form: Awaited<ReturnType<typeof openForm>>, set: Record<string, string>) => {
    const out = form.inputs.map(
      ([k, v]) => [k, k in set ? (set[k] as string) : fromHtml(v)] as [string, string],
    );
    for (const [k, v] of Object.entries(set)) if (!out.some(([name]) => name === k)) out.push([k, v]);
    return out;
  };

  /** The hosted approval flow for one client user; `passkey` makes the form's passkey field. */
  async function approve(clientUserId: string, passkey?: (options: { challenge: string }) => unknown) {
    const app = as(c.svc, c.liveKey);
    const approval = await app('POST', '/v1/approval_tokens', {
      client_user_id: clientUserId,
      redirect_uri: 'https://app.example/callback',
      rules: RULES,
    });
    expect(approval.status).toBe(201);
    const form = await openForm(approval.body.hosted_url);
    const res = await submit(
      c.svc.url,
      '/hosted/approve',
      fieldsOf(form, {
        decision: 'approve',
        passkey: passkey ? JSON.stringify(passkey(passkeyOptions(form.page))) : '',
      }),
    );
    return { form, res };
  }

  /** A live user approved through the hosted page, with a passkey from `auth` when given. */
  async function user(auth?: SoftAuthenticator): Promise<{ call: Call; userId: string }> {
    const { res } = await approve(
      `u-${Math.random().toString(36).slice(2)}`,
      auth && ((o) => auth.register(o)),
    );
    expect(res.status, await res.clone().text()).toBe(303);
    const publicToken = new URL(res.headers.get('location') as string).searchParams.get('public_token');
    const ex = await as(c.svc, c.liveKey)('POST', '/v1/approval_tokens/exchange', {
      public_token: publicToken,
    });
    expect(ex.status).toBe(200);
    return { call: as(c.svc, c.liveKey, ex.body.user_token), userId: ex.body.user_id };
  }

  /** A live UCP checkout whose store total (24.44) is above confirm_above (10.00): it waits for the user. */
  async function waiting(call: Call) {
    const s = await store();
    const offer = await call('POST', '/v1/offers', { url: s.productUrl('mug') });
    expect(offer.status).toBe(201);
    const chk = await call('POST', '/v1/checkouts', {
      offer_id: offer.body.id,
      quantity: 1,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(chk.status, JSON.stringify(chk.body)).toBe(201);
    expect(chk.body).toMatchObject({
      status: 'requires_user_action',
      next_action: { type: 'user_confirmation' },
    });
    return { s, chk: chk.body };
  }

  /** Posts the confirm page's form as it was rendered, with `passkey` as the script would fill it. */
  const confirmWith = (form: Awaited<ReturnType<typeof openForm>>, passkey: unknown) =>
    submit(
      c.svc.url,
      '/hosted/confirm',
      fieldsOf(form, { decision: 'approve', passkey: JSON.stringify(passkey) }),
    );

  /** Nothing moved: still waiting for the user, the app cannot confirm, the store placed nothing. */
  async function nothingPlaced(call: Call, id: string, s: Awaited<ReturnType<typeof store>>) {
    const now = await call('GET', `/v1/checkouts/${id}`);
    expect(now.body).toMatchObject({ status: 'requires_user_action', user_confirmed_at: null });
    expect((await call('POST', `/v1/checkouts/${id}/confirm`)).status).toBe(409);
    expect([...s.sessions.values()].map((x) => x.status)).not.toContain('completed');
    expect((await call('GET', '/v1/orders')).body.orders).toEqual([]);
  }

  it('the attack: the app fetches the confirm page and posts "approve" without a passkey: refused, no order', async () => {
    const auth = authenticator();
    const { call } = await user(auth);
    const { s, chk } = await waiting(call);
    expect(chk.next_action.description).toContain('with their passkey');

    const form = await openForm(chk.next_action.url);
    expect(form.res.status).toBe(200);
    expect(form.res.headers.get('content-security-policy')).toContain("script-src 'self'");
    // Exactly what the script did: every hidden field as rendered, and decision=approve.
    const res = await submit(c.svc.url, '/hosted/confirm', fieldsOf(form, { decision: 'approve' }));
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Nothing was bought');
    // A made-up "signature" is no better.
    const again = await openForm(chk.next_action.url);
    const forged = await confirmWith(again, {
      id: auth.credentialId,
      rawId: auth.credentialId,
      type: 'public-key',
      response: { clientDataJSON: 'e30' },
      clientExtensionResults: {},
    });
    expect(forged.status).toBe(403);
    await nothingPlaced(call, chk.id, s);
  });

  it('the user registers a passkey on the approval page and confirms with it; the app then places the order', async () => {
    const auth = authenticator();
    const { call } = await user(auth);
    const { chk } = await waiting(call);
    const form = await openForm(chk.next_action.url);
    const res = await confirmWith(form, auth.sign(passkeyOptions(form.page)));
    const page = await res.text();
    expect(res.status, page).toBe(200);
    expect(page).toContain('data-status="ready_to_confirm"');
    const placed = await call('POST', `/v1/checkouts/${chk.id}/confirm`);
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    expect(placed.body.status).toBe('completed');
    expect((await call('GET', '/v1/orders')).body.orders).toHaveLength(1);
  });

  it('a replayed signature is refused: on another checkout, and after the page was rendered again', async () => {
    const auth = authenticator();
    const { call } = await user(auth);
    const first = await waiting(call);
    const form1 = await openForm(first.chk.next_action.url);
    const used = auth.sign(passkeyOptions(form1.page));
    expect((await confirmWith(form1, used)).status).toBe(200);

    // The same signature, posted on the next checkout's page: its challenge is not that page's.
    const second = await waiting(call);
    const form2 = await openForm(second.chk.next_action.url);
    const replay = await confirmWith(form2, used);
    expect(replay.status).toBe(403);
    expect(await replay.text()).toContain('older or expired page');

    // A signature for a render that a newer render replaced is stale too.
    const older = await openForm(second.chk.next_action.url);
    const olderSig = auth.sign(passkeyOptions(older.page));
    const newer = await openForm(second.chk.next_action.url);
    expect((await confirmWith(newer, olderSig)).status).toBe(403);
    await nothingPlaced(call, second.chk.id, second.s);

    // The refusals burned only the challenge: the page, rendered again, confirms.
    const fresh = await openForm(second.chk.next_action.url);
    expect((await confirmWith(fresh, auth.sign(passkeyOptions(fresh.page)))).status).toBe(200);
  });

  it("another user's passkey is refused", async () => {
    const mine = authenticator();
    const theirs = authenticator();
    const { call } = await user(mine);
    await user(theirs);
    const { s, chk } = await waiting(call);
    const form = await openForm(chk.next_action.url);
    const res = await confirmWith(form, theirs.sign(passkeyOptions(form.page)));
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('not one you registered');
    await nothingPlaced(call, chk.id, s);
  });

  it('a stale challenge (older than 5 minutes), a wrong origin and a wrong rpID are refused', async () => {
    const auth = authenticator();
    const { call } = await user(auth);
    const { s, chk } = await waiting(call);

    const stale = await openForm(chk.next_action.url);
    c.svc.clock.advance(5 * 60_000 + 1);
    const late = await confirmWith(stale, auth.sign(passkeyOptions(stale.page)));
    expect(late.status).toBe(403);
    expect(await late.text()).toContain('older or expired page');

    const phished = await openForm(chk.next_action.url);
    const fromElsewhere = await confirmWith(
      phished,
      auth.sign(passkeyOptions(phished.page), { origin: 'https://svc-confirm.example' }),
    );
    expect(fromElsewhere.status).toBe(403);
    expect(await fromElsewhere.text()).toContain('could not be verified');

    const otherRp = await openForm(chk.next_action.url);
    const wrongRp = await confirmWith(
      otherRp,
      auth.sign(passkeyOptions(otherRp.page), { rpId: 'svc-confirm.example' }),
    );
    expect(wrongRp.status).toBe(403);
    await nothingPlaced(call, chk.id, s);
  });

  it('a live user without a passkey: next_action says how to make one, and the page cannot confirm', async () => {
    const { call } = await user();
    const { s, chk } = await waiting(call);
    expect(chk.next_action.description).toContain('have not created one');
    expect(chk.next_action.description).toContain('POST /v1/approval_tokens with the same client_user_id');
    const form = await openForm(chk.next_action.url);
    expect(form.page).toContain('id="passkey-missing"');
    expect(form.page).not.toContain('value="approve"');
    const res = await submit(c.svc.url, '/hosted/confirm', fieldsOf(form, { decision: 'approve' }));
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('A passkey is needed');
    await nothingPlaced(call, chk.id, s);
    // Declining needs no passkey.
    const no = await submit(
      c.svc.url,
      '/hosted/confirm',
      fieldsOf(await openForm(chk.next_action.url), { decision: 'decline' }),
    );
    expect(no.status).toBe(200);
    expect((await call('GET', `/v1/checkouts/${chk.id}`)).body.status).toBe('failed');
  });

  it('a user who has a passkey must sign to approve again: the app can neither script it nor add its own passkey', async () => {
    const auth = authenticator();
    const clientUserId = `u-${Math.random().toString(36).slice(2)}`;
    expect((await approve(clientUserId, (o) => auth.register(o))).res.status).toBe(303);

    const scripted = await approve(clientUserId);
    expect(scripted.form.page).toContain('data-passkey="get"');
    expect(scripted.res.status).toBe(403);
    expect(scripted.res.headers.get('location')).toBeNull();

    const ownKey = authenticator();
    const added = await approve(clientUserId, (o) => ownKey.register(o));
    expect(added.res.status).toBe(403);
    const withTheirs = await approve(clientUserId, (o) => ownKey.sign(o));
    expect(withTheirs.res.status).toBe(403);

    const signed = await approve(clientUserId, (o) => auth.sign(o));
    expect(signed.res.status).toBe(303);
    expect(new URL(signed.res.headers.get('location') as string).searchParams.get('public_token')).toMatch(
      /^public-live-/,
    );
  });

  it('a registration that does not verify is refused and approves nothing', async () => {
    const auth = authenticator();
    const bad = await approve(`u-${Math.random().toString(36).slice(2)}`, (o) =>
      auth.register(o, { origin: 'https://svc-confirm.example' }),
    );
    expect(bad.res.status).toBe(403);
    expect(await bad.res.text()).toContain('Nothing was approved');
  });
});

describe('the relying party comes from COMMERCE_PUBLIC_URL', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startLiveCommerce({ commerce: { port: 0, publicUrl: 'https://shop.example' } });
  });
  afterAll(async () => {
    await c.close();
  });

  /** A hosted page at its public URL, fetched here directly, as the proxy in front of it would. */
  const openHere = (publicLink: string) => {
    const url = new URL(publicLink);
    return openForm(`${c.svc.url}${url.pathname}${url.search}`);
  };
  /** The form as rendered, approving, with `passkey` in its passkey field. */
  const approving = (form: Awaited<ReturnType<typeof openForm>>, passkey = '') => [
    ...form.inputs.filter(([k]) => k !== 'passkey').map(([k, v]) => [k, fromHtml(v)] as [string, string]),
    ['decision', 'approve'] as [string, string],
    ['passkey', passkey] as [string, string],
  ];

  it('the page asks for a passkey of its public host, and one made for the address it was fetched at is refused', async () => {
    const app = as(c.svc, c.liveKey);
    const approval = await app('POST', '/v1/approval_tokens', {
      client_user_id: 'grace',
      redirect_uri: 'https://app.example/callback',
    });
    expect(approval.body.hosted_url).toMatch(/^https:\/\/shop\.example\/hosted\/approve\?/);
    const form = await openHere(approval.body.hosted_url);
    const options = passkeyOptions(form.page) as { challenge: string; rp: { id: string } };
    expect(options.rp.id).toBe('shop.example');
    const local = new SoftAuthenticator(new URL(c.svc.url).hostname, new URL(c.svc.url).origin);
    const wrong = await submit(
      c.svc.url,
      '/hosted/approve',
      approving(form, JSON.stringify(local.register(options))),
    );
    expect(wrong.status).toBe(403);
    const again = await openHere(approval.body.hosted_url);
    const right = new SoftAuthenticator('shop.example', 'https://shop.example');
    const ok = await submit(
      c.svc.url,
      '/hosted/approve',
      approving(again, JSON.stringify(right.register(passkeyOptions(again.page)))),
    );
    expect(ok.status).toBe(303);
  });

  it('a user token approved through one key works with another key of the same account and environment (docs: decisions)', async () => {
    const app = as(c.svc, c.liveKey);
    const approval = await app('POST', '/v1/approval_tokens', {
      client_user_id: 'lin',
      redirect_uri: 'https://app.example/callback',
    });
    const res = await submit(
      c.svc.url,
      '/hosted/approve',
      approving(await openHere(approval.body.hosted_url)),
    );
    const publicToken = new URL(res.headers.get('location') as string).searchParams.get('public_token');
    const rotated = await makeKey(c.svc, 'live', 'Acme Shopping Assistant (rotated)');
    const ex = await as(c.svc, rotated)('POST', '/v1/approval_tokens/exchange', {
      public_token: publicToken,
    });
    expect(ex.status).toBe(200);
    expect((await as(c.svc, c.liveKey, ex.body.user_token)('GET', '/v1/orders')).status).toBe(200);
    expect((await as(c.svc, rotated, ex.body.user_token)('GET', '/v1/orders')).status).toBe(200);
    // Another environment's key is another world: the token is unknown there.
    expect((await as(c.svc, c.sandboxKey, ex.body.user_token)('GET', '/v1/orders')).status).toBe(401);
  });
});
