import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowser } from '../helpers/browser.js';
import { ADDRESS, as, BUYER, type Commerce } from './helpers.js';
import { startLiveCommerce, ucpStores } from './ucp-helpers.js';

/**
 * The passkey flow in a real Chromium, with its virtual authenticator (over CDP) standing in for
 * the user's fingerprint: the user creates a passkey on the hosted approval page, and later
 * confirms a live checkout above confirm_above with it. The pages are opened at localhost, a
 * secure context whose host name can be a WebAuthn relying party (an IP address cannot).
 */
describe('passkeys in a real browser', () => {
  let c: Commerce;
  let base: string;
  const browser = useBrowser();
  const store = ucpStores();

  beforeAll(async () => {
    c = await startLiveCommerce();
    base = c.svc.url.replace('127.0.0.1', 'localhost');
  });
  afterAll(async () => {
    await c?.close();
  });

  it('registers a passkey in the approval flow and confirms a live checkout above confirm_above with it', async () => {
    const page = await browser().page();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    const app = as({ url: base }, c.liveKey);
    const approval = await app('POST', '/v1/approval_tokens', {
      client_user_id: 'ada',
      // The app's own page on this machine (the browser has no network); what it answers is not read.
      redirect_uri: `${base}/app-callback`,
      rules: { max_per_order: 100_000, max_per_day: 500_000, confirm_above: 1000 },
    });
    expect(approval.status).toBe(201);
    expect(approval.body.hosted_url.startsWith(`${base}/hosted/approve?`)).toBe(true);

    await page.goto(approval.body.hosted_url);
    await page.getByRole('button', { name: 'Create a passkey' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toContain('Passkey created');
    const back = page.waitForURL((url) => url.pathname === '/app-callback');
    await page.getByRole('button', { name: 'Approve' }).click();
    await back;
    const publicToken = new URL(page.url()).searchParams.get('public_token');
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]?.rpId).toBe('localhost');

    const ex = await app('POST', '/v1/approval_tokens/exchange', { public_token: publicToken });
    expect(ex.status).toBe(200);
    const user = as({ url: base }, c.liveKey, ex.body.user_token);
    const s = await store();
    const offer = await user('POST', '/v1/offers', { url: s.productUrl('mug') });
    const chk = await user('POST', '/v1/checkouts', {
      offer_id: offer.body.id,
      quantity: 1,
      buyer: BUYER,
      shipping_address: ADDRESS,
    });
    expect(chk.body).toMatchObject({
      status: 'requires_user_action',
      next_action: { type: 'user_confirmation' },
    });
    expect(chk.body.next_action.description).toContain('with their passkey');

    await page.goto(chk.body.next_action.url);
    const loaded = page.waitForEvent('load');
    await page.getByRole('button', { name: 'Confirm $24.44' }).click();
    await loaded;
    await expect.poll(() => page.locator('#status').getAttribute('data-status')).toBe('ready_to_confirm');
    const used = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(used.credentials[0]?.signCount).toBeGreaterThan(credentials[0]?.signCount ?? 0);

    const placed = await user('POST', `/v1/checkouts/${chk.body.id}/confirm`);
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    expect(placed.body.status).toBe('completed');
  });
});
