import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { startTokenizer } from '../fakes/ucp-tokenizer.js';
import { axeViolations, screenshot } from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { startTestService } from '../helpers/start.js';
import {
  ADDRESS,
  as,
  BUYER,
  type Commerce,
  makeKey,
  PROTOCOL,
  sandboxUser,
  startCommerce,
  startReceiver,
} from './helpers.js';
import { liveUser, offerAndCheckout, ucpStores } from './ucp-helpers.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * Every server-rendered commerce page (the operator's dashboard and its pages, the shopper's
 * hosted approval, confirm and card pay pages), reached the way a person reaches it, checked with
 * axe-core at 1280 px and at 390 px: no serious or critical violation, and no sideways
 * scrolling on the phone. The pages the REST API hands out are the ones visited.
 */
describe('commerce pages: axe-core at 1280 px and 390 px', { timeout: 180_000 }, () => {
  let c: Commerce;
  let receiver: Receiver;
  let page: Page;
  const found: Record<string, unknown> = {};
  const browser = useBrowser();
  const store = ucpStores();

  beforeAll(async () => {
    c = await startCommerce({ webhookAllowPrivate: true });
    receiver = await startReceiver();
    page = await browser().page();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await c?.close();
  });

  /** Checks the page as it is at both widths; records what is wrong under `name`. */
  async function check(name: string, shot?: string) {
    await page.setViewportSize({ width: 1280, height: 900 });
    const wide = await axeViolations(page);
    if (shot) await screenshot(page, `${shot}-desktop`);
    await page.setViewportSize({ width: 390, height: 844 });
    const narrow = await axeViolations(page);
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (shot) await screenshot(page, `${shot}-390`, { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
    if (wide.length || narrow.length || sideways > 0) found[name] = { wide, narrow, sideways };
  }
  const click = async (name: string | RegExp) => {
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name }).first().click()]);
  };

  it("the shopper's hosted pages: approve a connection, confirm a total, and the answers", async () => {
    const app = as(c.svc, c.sandboxKey);
    const token = await app('POST', '/v1/approval_tokens', {
      client_user_id: 'shopper',
      redirect_uri: 'https://app.example/callback',
      merchant_ids: ['sandbox-protocol'],
    });
    expect(token.status).toBe(201);
    await page.goto(token.body.hosted_url);
    await check('hosted approval page', 'hosted-approval');

    const { call } = await sandboxUser(c.svc, c.sandboxKey, { rules: { confirm_above: 1000 } });
    const chk = await call('POST', '/v1/checkouts', {
      product_url: `${PROTOCOL}/price-4200-lamp`,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(chk.body.next_action.type).toBe('user_confirmation');
    await page.goto(chk.body.next_action.url);
    await check('hosted confirm page', 'hosted-confirm');
    await click(/^Confirm /);
    expect((await call('GET', `/v1/checkouts/${chk.body.id}`)).body.status).toBe('ready_to_confirm');
    await check('hosted confirmed page');
    const used = await page.goto(chk.body.next_action.url);
    expect(used?.status()).toBeGreaterThanOrEqual(400);
    await check('hosted page for a used link');
  });

  it("the operator's dashboard, its purchase pages, a revealed secret, a new key and a refusal", async () => {
    browser();
    const app = as(c.svc, c.sandboxKey);
    expect((await app('POST', '/v1/webhook_endpoints', { url: receiver.url })).status).toBe(201);
    const { call } = await sandboxUser(c.svc, c.sandboxKey, { client_user_id: 'axe-buyer' });
    const offer = await app('POST', '/v1/offers', { url: `${PROTOCOL}/requires-action-tea-kettle` });
    const chk = await call('POST', '/v1/checkouts', {
      offer_id: offer.body.id,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    await call('POST', `/v1/checkouts/${chk.body.id}/user_input`, { fields: { code: '424242' } });
    const done = await call('POST', `/v1/checkouts/${chk.body.id}/confirm`, undefined, {
      'idempotency-key': 'axe-1',
    });
    expect(done.body.status).toBe('completed');
    await c.handle.dispatcher.runDue();

    await page.goto(`${c.svc.url}/dashboard`);
    await check('dashboard', 'dashboard');
    await page.goto(`${c.svc.url}/dashboard?state=completed&env=sandbox`);
    await check('dashboard, filtered');
    await page.goto(`${c.svc.url}/dashboard?from=not-a-date`);
    await check('dashboard, bad filter');
    await page.goto(`${c.svc.url}/dashboard/checkouts/${chk.body.id}`);
    await check('checkout page', 'dashboard-checkout');
    await page.goto(`${c.svc.url}/dashboard/orders/${done.body.order_id}`);
    await check('order page');
    await page.goto(`${c.svc.url}/dashboard/orders/ord_unknown`);
    await check('refused page');
    await page.goto(`${c.svc.url}/dashboard`);
    await click(/^Reveal secret/);
    await check('revealed secret');
    await page.goto(`${c.svc.url}/dashboard`);
    await page.getByLabel('Name (shown to people on the approval page)').fill('Axe app');
    await click('Create key');
    await check('new key');
  });

  it("the shopper's hosted pay page (a store that takes a card), and the page paying answers", async () => {
    const svc = await startTestService('commerce', {
      config: { storesAllowPrivate: true } as Partial<Config>,
    });
    const tokenizer = await startTokenizer({ host: '127.0.0.9', allowOrigin: new URL(svc.url).origin });
    try {
      const { call } = await liveUser({ svc, liveKey: await makeKey(svc, 'live') });
      const s = await store({ tokenizer: { endpoint: tokenizer.endpoint, identity: tokenizer.identity } });
      const checkout = await offerAndCheckout(call, s);
      expect(checkout.next_action.type).toBe('card_payment');
      await page.goto(checkout.next_action.url);
      await check('hosted pay page');
      await page.getByLabel('Name on card').fill('Ada Lovelace');
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByLabel('Expiry month (1-12)').fill('12');
      await page.getByLabel('Expiry year').fill('2030');
      await page.getByLabel('Security code').fill('123');
      await click(/^Pay /);
      await expect(page.locator('h1').textContent()).resolves.toBe('Order placed');
      expect((await call('GET', `/v1/checkouts/${checkout.id}`)).body.status).toBe('completed');
      await check('hosted paid page');
    } finally {
      await tokenizer.close();
      await svc.close();
    }
    expect(tokenizer.violations, 'tokenization API violations').toEqual([]);
  });

  it('found no serious or critical violation and nothing sideways on any of them', () => {
    browser();
    expect(found).toEqual({});
  });
});
