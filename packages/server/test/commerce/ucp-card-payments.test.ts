import { afterEach, describe, expect, it } from 'vitest';
import { TOKENIZER_HANDLER, type UcpStore } from '../fakes/ucp-store.js';
import { callTokenizer, type FakeTokenizer, startTokenizer } from '../fakes/ucp-tokenizer.js';
import { as, type Call } from './helpers.js';
import { fromHtml, openForm, submit } from './hosted-forms.js';
import { liveServiceAndUser, liveUser, offerAndCheckout, ucpStores } from './ucp-helpers.js';

/*
 * Paying through a store's tokenization handler (issue 21): the buyer's card goes from the hosted
 * pay page straight to the tokenizer; svc gets the token and sends it at complete. These tests do
 * the page script's part by hand (the browser test, ucp-card-browser.test.ts, runs the real one).
 */

const CARD = {
  type: 'card',
  card_number_type: 'fpan',
  number: '4242424242424242',
  expiry_month: 12,
  expiry_year: 2030,
  cvc: '123',
  name: 'Ada Lovelace',
};

describe('UCP: paying through a tokenization handler', () => {
  const live = liveServiceAndUser();
  const user: Call = (...args) => live.user(...args);
  const store = ucpStores();
  const tokenizers: FakeTokenizer[] = [];
  afterEach(async () => {
    for (const t of tokenizers.splice(0)) {
      await t.close();
      expect(t.violations, 'tokenization API violations').toEqual([]);
    }
  });

  const pageOrigin = () => new URL(live.c.svc.url).origin;
  async function tokenizingStore(extra: Partial<UcpStore['script']> = {}) {
    const t = await startTokenizer({ host: '127.0.0.9', allowOrigin: pageOrigin() });
    tokenizers.push(t);
    const s = await store({ tokenizer: { endpoint: t.endpoint, identity: t.identity }, ...extra });
    return { t, s };
  }

  /** What the pay page's script does: the card to the tokenizer, bound as the page says. */
  async function tokenize(t: FakeTokenizer, page: string) {
    const binding = JSON.parse(fromHtml(/data-binding="([^"]+)"/.exec(page)?.[1] ?? 'null'));
    const out = await callTokenizer(t.endpoint, '/tokenize', { credential: CARD, binding }, pageOrigin());
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    return out.body.token as string;
  }

  async function pay(
    url: string,
    token: (page: string) => Promise<string>,
    headers: Record<string, string> = {},
  ) {
    const form = await openForm(url);
    expect(form.res.status).toBe(200);
    const filledByScript = ['payment_token', 'display_brand', 'display_last4'];
    const fields = form.inputs
      .filter(([k]) => !filledByScript.includes(k))
      .map(([k, v]) => [k, fromHtml(v)] as [string, string]);
    const res = await submit(
      live.c.svc.url,
      form.action as string,
      [
        ...fields,
        ['payment_token', await token(form.page)],
        ['display_brand', 'visa'],
        ['display_last4', CARD.number.slice(-4)],
      ],
      headers,
    );
    return { form, res, text: await res.text() };
  }

  it('a store whose only payment is a tokenization handler: the user pays on the hosted page, and the store charges the card behind the token', async () => {
    const { t, s } = await tokenizingStore();
    const checkout = await offerAndCheckout(user, s);
    expect(checkout.status).toBe('requires_user_action');
    expect(checkout.next_action).toMatchObject({
      type: 'card_payment',
      url: expect.stringContaining('/hosted/pay?token='),
    });
    // The app cannot confirm: the buyer's card is the last step.
    expect((await user('POST', `/v1/checkouts/${checkout.id}/confirm`)).status).toBe(409);

    const { form, res, text } = await pay(checkout.next_action.url, (page) => tokenize(t, page));
    const csp = form.res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`connect-src ${t.endpoint}`);
    expect(csp.match(/connect-src ([^;]*)/)?.[1]).toBe(t.endpoint);
    expect(csp).toContain("script-src 'self'");
    // The card fields have no name: a form post can never carry them here.
    expect(form.page).not.toMatch(/name="card/);
    expect(form.page).toContain(`data-tokenizer="${t.endpoint}/tokenize"`);
    expect(res.status).toBe(200);
    expect(text).toContain('Order placed');

    const done = await user('GET', `/v1/checkouts/${checkout.id}`);
    expect(done.body.status).toBe('completed');
    expect(s.orders).toHaveLength(1);
    const complete = s.requests.find((r) => r.path.endsWith('/complete'));
    const [instrument] = (complete?.body as any)?.payment?.instruments ?? [];
    expect(instrument).toMatchObject({
      handler_id: TOKENIZER_HANDLER,
      type: 'card',
      selected: true,
      credential: { type: 'token', token: [...t.tokens.keys()][0] },
    });
    // The store got the card back from the tokenizer, bound to its own session.
    expect(s.detokenized).toEqual([{ session: [...s.sessions.keys()][0], card: CARD }]);
    // svc never called the tokenizer: only the browser (tokenize) and the store (detokenize) did.
    expect(t.requests.map((r) => [r.path, r.origin])).toEqual([
      ['/tokenize', pageOrigin()],
      ['/detokenize', undefined],
    ]);
    // The link is spent.
    expect((await fetch(checkout.next_action.url)).status).toBe(410);
  });

  it("a 2026-01-11 store declaring its tokenizer in the profile's payment.handlers: the buyer pays on the hosted page, and the complete carries the token as payment_data", async () => {
    const { t, s } = await tokenizingStore({ shape: '2026-01-11' });
    const checkout = await offerAndCheckout(user, s);
    expect(checkout).toMatchObject({ status: 'requires_user_action', next_action: { type: 'card_payment' } });
    const { text } = await pay(checkout.next_action.url, (page) => tokenize(t, page));
    expect(text).toContain('Order placed');
    expect((await user('GET', `/v1/checkouts/${checkout.id}`)).body.status).toBe('completed');
    const complete = s.requests.find((r) => r.path.endsWith('/complete'));
    expect(complete?.body).toEqual({
      payment_data: {
        id: `card_${checkout.id}`,
        handler_id: TOKENIZER_HANDLER,
        type: 'card',
        brand: 'visa',
        last_digits: '4242',
        credential: { type: 'token', token: [...t.tokens.keys()][0] },
      },
    });
    expect(s.detokenized).toHaveLength(1);
    expect(s.orders).toHaveLength(1);
  });

  it('a token replayed onto another checkout is refused by the binding: that checkout fails declined, and nothing is ordered for it', async () => {
    const { t, s } = await tokenizingStore();
    const first = await offerAndCheckout(user, s);
    const second = await offerAndCheckout(user, s);
    // The token the buyer's card got for the first checkout, posted on the second one's page.
    const stolen = await tokenize(t, (await openForm(first.next_action.url)).page);
    const { text } = await pay(second.next_action.url, async () => stolen);
    expect(text).toContain('The order was not placed');
    const after = await user('GET', `/v1/checkouts/${second.id}`);
    expect(after.body).toMatchObject({ status: 'failed', error: { code: 'PAYMENT_DECLINED' } });
    expect(s.orders).toEqual([]);
  });

  it('a pay form another site submits (Sec-Fetch-Site: cross-site) is refused: nothing is sent to the store, and the link still works', async () => {
    const { t, s } = await tokenizingStore();
    const checkout = await offerAndCheckout(user, s);
    const forged = await pay(checkout.next_action.url, (page) => tokenize(t, page), {
      'sec-fetch-site': 'cross-site',
    });
    expect(forged.res.status).toBe(403);
    expect(forged.text).toContain('Nothing was bought');
    expect((await user('GET', `/v1/checkouts/${checkout.id}`)).body.status).toBe('requires_user_action');
    expect(s.requests.filter((r) => r.path.endsWith('/complete'))).toEqual([]);
    const { text } = await pay(checkout.next_action.url, (page) => tokenize(t, page), {
      'sec-fetch-site': 'same-origin',
    });
    expect(text).toContain('Order placed');
    expect(s.orders).toHaveLength(1);
  });

  it('a card checkout is invisible to another user of the same key (404 for reading, updating, confirming, canceling), and the sandbox key reaches no live user (401)', async () => {
    const { s } = await tokenizingStore();
    const checkout = await offerAndCheckout(user, s);
    const other = (await liveUser(live.c)).call;
    expect((await other('GET', `/v1/checkouts/${checkout.id}`)).status).toBe(404);
    for (const verb of ['update', 'confirm', 'cancel']) {
      const res = await other(
        'POST',
        `/v1/checkouts/${checkout.id}/${verb}`,
        verb === 'update' ? {} : undefined,
      );
      expect([verb, res.status]).toEqual([verb, 404]);
    }
    const sandbox = as(live.c.svc, live.c.sandboxKey);
    expect((await sandbox('GET', `/v1/checkouts/${checkout.id}`)).status).toBe(401);
    expect((await user('GET', `/v1/checkouts/${checkout.id}`)).body.status).toBe('requires_user_action');
    expect(s.requests.filter((r) => /\/(complete|cancel)$/.test(r.path))).toEqual([]);
  });

  it('a pay form without a token, or with one too long, places nothing and leaves the link usable', async () => {
    const { s } = await tokenizingStore();
    const checkout = await offerAndCheckout(user, s);
    for (const token of ['', 'x'.repeat(5000), 'has spaces in it']) {
      const { res } = await pay(checkout.next_action.url, async () => token);
      expect(res.status).toBe(400);
    }
    expect((await user('GET', `/v1/checkouts/${checkout.id}`)).body.status).toBe('requires_user_action');
    expect(s.requests.filter((r) => r.path.endsWith('/complete'))).toEqual([]);
    expect((await openForm(checkout.next_action.url)).res.status).toBe(200);
  });

  it.each([
    ['javascript:', 'javascript:alert(1)//'],
    ['plain http off loopback', 'http://10.0.0.5/tok'],
    ['a private address', 'https://192.168.1.10/tok'],
    ['an internal name', 'https://vault.internal/tok'],
    ['credentials in the URL', 'https://user:pw@tokens.example.com/tok'],
    ['a CSP-widening host', 'https://*.example.com/tok'],
    ['a query', 'https://tokens.example.com/tok?x=1'],
  ])(
    'a hostile profile naming a tokenizer with %s is not a tokenizer: the store hands off or stalls, and no pay page exists',
    async (_what, endpoint) => {
      const s = await store({ tokenizer: { endpoint, identity: 'm' }, noContinueUrl: true });
      const checkout = await offerAndCheckout(user, s);
      expect(checkout.status).toBe('failed');
      expect(checkout.error.code).toBe('MERCHANT_CHECKOUT_STALLED');
      expect(checkout.next_action).toBeNull();
    },
  );

  it('a store with only a handler svc does not support (a wallet) hands the buyer to its continue_url', async () => {
    const s = await store({ walletOnly: true });
    const checkout = await offerAndCheckout(user, s);
    expect(checkout.status).toBe('requires_user_action');
    expect(checkout.next_action).toMatchObject({
      type: 'browser',
      url: `${s.origin}/checkout/${[...s.sessions.keys()][0]}`,
    });
  });

  it('a store with only an unsupported handler and no continue_url fails the checkout with a reason, never waits', async () => {
    const s = await store({ walletOnly: true, noContinueUrl: true });
    const checkout = await offerAndCheckout(user, s);
    expect(checkout).toMatchObject({ status: 'failed', error: { code: 'MERCHANT_CHECKOUT_STALLED' } });
  });

  it('the store does not answer the complete: the checkout waits in confirming, and recovery asks the store and ends it (the token is never re-sent)', async () => {
    const { t, s } = await tokenizingStore({ dropCompleteAnswers: 1 });
    const checkout = await offerAndCheckout(user, s);
    const { text } = await pay(checkout.next_action.url, (page) => tokenize(t, page));
    expect(text).toContain('Order being placed');
    expect((await user('GET', `/v1/checkouts/${checkout.id}`)).body.status).toBe('confirming');
    // The store placed it: recovery (run at start-up of the background work) finds the order by
    // asking, without sending the complete again.
    live.c.svc.handle.startBackground();
    let after = (await user('GET', `/v1/checkouts/${checkout.id}`)).body;
    for (let i = 0; after.status === 'confirming' && i < 400; i++) {
      await new Promise((r) => setTimeout(r, 5));
      after = (await user('GET', `/v1/checkouts/${checkout.id}`)).body;
    }
    expect(after.status).toBe('completed');
    expect(s.requests.filter((r) => r.path.endsWith('/complete'))).toHaveLength(1);
    expect(s.orders).toHaveLength(1);
  });
});
