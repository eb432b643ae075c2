import { verifySignature } from '@svc/webhooks';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { as, startReceiver } from './helpers.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/**
 * The dashboard driven by a real Chromium: the browser decides which Origin, Referer and
 * Sec-Fetch-Site headers its own form posts carry, so this is what proves the guard lets the
 * page work (a no-referrer page made Chromium send `Origin: null`, which was refused).
 */
describe('dashboard in a real browser', () => {
  let svc: TestService;
  let receiver: Receiver;
  let page: Page;
  const refused: string[] = [];

  const browser = useBrowser();
  beforeAll(async () => {
    svc = await startTestService('commerce', { config: { webhookAllowPrivate: true } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await svc?.close();
  });

  /** Clicks a form's button, fails with the server's answer if the post is refused, else waits for the next page. */
  async function post(button: Locator): Promise<void> {
    const loaded = page.waitForEvent('load');
    loaded.catch(() => undefined);
    const answered = page.waitForResponse((r) => r.request().method() === 'POST');
    await button.click();
    const res = await answered;
    if (res.status() >= 400)
      throw new Error(`The form post was refused: ${res.status()} ${await res.text()}`);
    await loaded;
  }
  /** `post`, then the notice the dashboard shows. */
  async function submit(button: Locator): Promise<string> {
    await post(button);
    return (await page.getByRole('status').or(page.getByRole('alert')).first().textContent()) ?? '';
  }
  const endpoints = async () =>
    (await api(svc.url, 'GET', '/dashboard/api/webhook_endpoints')).body.endpoints;
  const row = (table: string, text: string) => page.locator(`${table} tbody tr`, { hasText: text });

  it('adds an endpoint', async () => {
    page = await browser().page();
    page.on('response', (res) => {
      if (res.status() >= 400) refused.push(`${res.status()} ${res.request().method()} ${res.url()}`);
    });
    await page.goto(`${svc.url}/dashboard`);
    await page.locator('#env').selectOption('sandbox');
    await page.getByLabel('https URL').fill(receiver.url);
    expect(await submit(page.getByRole('button', { name: 'Add', exact: true }))).toBe(
      `Added ${receiver.url} (sandbox).`,
    );
    expect((await endpoints()).map((e: { url: string }) => e.url)).toEqual([receiver.url]);
    await expect(row('#endpoints', receiver.url).count()).resolves.toBe(1);
  });

  it('sends a test event the receiver gets, signed with the secret the reveal shows', async () => {
    browser();
    const [endpoint] = await endpoints();
    expect(endpoint).not.toHaveProperty('secret');
    await post(row('#endpoints', receiver.url).getByRole('button', { name: /^Reveal secret/ }));
    const secret = (await page.locator('#endpoint-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await Promise.all([
      page.waitForEvent('load'),
      page.getByRole('link', { name: 'Back to the dashboard' }).click(),
    ]);
    expect(await submit(row('#endpoints', receiver.url).getByRole('button', { name: 'Send test' }))).toBe(
      'Test delivered (200).',
    );
    expect(receiver.received.map((r) => r.event.type)).toEqual(['webhook.test']);
    const first = receiver.received[0];
    verifySignature(first?.body ?? '', first?.headers['service-signature'] as string, secret, {
      now: () => svc.clock.now(),
    });
    await expect(row('#deliveries', first?.event.id).count()).resolves.toBe(1);
  });

  it('resends the event', async () => {
    browser();
    const eventId = receiver.received[0]?.event.id;
    expect(await submit(row('#deliveries', eventId).first().getByRole('button', { name: 'Resend' }))).toBe(
      'Resent to 1 endpoint(s).',
    );
    expect(receiver.received.map((r) => r.event.id)).toEqual([eventId, eventId]);
    await expect(row('#deliveries', eventId).count()).resolves.toBe(2);
  });

  it('removes the endpoint', async () => {
    browser();
    expect(await submit(row('#endpoints', receiver.url).getByRole('button', { name: 'Remove' }))).toBe(
      'Endpoint removed.',
    );
    expect(await endpoints()).toEqual([]);
    await expect(row('#endpoints', receiver.url).count()).resolves.toBe(0);
  });

  it('creates an API key, shows it once, and revokes it: the next request with it fails', async () => {
    browser();
    await page.getByLabel('Name (shown to people on the approval page)').fill('Browser app');
    await page.locator('#key-env').selectOption('sandbox');
    await post(page.getByRole('button', { name: 'Create key' }));
    const key = (await page.locator('#new-key').textContent()) ?? '';
    expect(key).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
    expect((await as(svc, key)('GET', '/v1/merchants')).status).toBe(200);

    await Promise.all([
      page.waitForEvent('load'),
      page.getByRole('link', { name: 'Back to the dashboard' }).click(),
    ]);
    const listed = row('#api-keys', 'Browser app');
    await expect(listed.textContent()).resolves.toContain(key.slice(0, 12));
    expect(await page.content()).not.toContain(key);

    expect(await submit(listed.getByRole('button', { name: 'Revoke' }))).toMatch(/^Revoked Browser app/);
    await expect(row('#api-keys', 'Browser app').textContent()).resolves.toMatch(/revoked/);
    const after = await as(svc, key)('GET', '/v1/merchants');
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('INVALID_API_KEY');
  });

  it('was never refused along the way', () => {
    browser();
    expect(refused).toEqual([]);
  });
});
