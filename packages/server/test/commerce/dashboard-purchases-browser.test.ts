import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import { watchProblems } from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import {
  ADDRESS,
  as,
  BUYER,
  type Call,
  makeKey,
  PROTOCOL,
  type Received,
  sandboxUser,
  startReceiver,
} from './helpers.js';

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A client user id is the API client's own string: the dashboard must show it, never run it. */
const HOSTILE = `<img src=x onerror="window.__xss=1">"'&<script>window.__xss=2</script>`;

/**
 * The operator's view of what was bought (issue 22, the commerce dashboard), in a real
 * Chromium against a real server: checkouts, orders and users with their states as the REST
 * API reports them, filterable, each linked to its events and webhook deliveries; secrets only
 * after a deliberate reveal; times in the viewer's zone; nothing sideways at 390 px.
 */
describe('the commerce dashboard: what was bought', { timeout: 120_000 }, () => {
  let svc: TestService;
  let receiver: Receiver;
  let page: Page;
  let problems: string[] = [];
  let completed: { id: string; order_id: string; created_at: string };
  let pending: { id: string; status: string };
  let endpoint: { id: string; secret: string };
  let buyer: Call;
  const browser = useBrowser();

  beforeAll(async () => {
    svc = await startTestService('commerce', { config: { webhookAllowPrivate: true } });
    receiver = await startReceiver();
    const key = await makeKey(svc, 'sandbox');
    const app = as(svc, key);
    const made = await app('POST', '/v1/webhook_endpoints', { url: receiver.url });
    expect(made.status).toBe(201);
    endpoint = made.body;

    const buy = async (clientUserId: string, slug: string) => {
      const { call } = await sandboxUser(svc, key, { client_user_id: clientUserId });
      const offer = await app('POST', '/v1/offers', { url: `${PROTOCOL}/${slug}` });
      expect(offer.status).toBe(201);
      const checkout = await call('POST', '/v1/checkouts', {
        offer_id: offer.body.id,
        buyer: BUYER,
        shipping_address: ADDRESS,
      });
      expect(checkout.status).toBe(201);
      return { call, checkout: checkout.body };
    };
    const hostile = await buy(HOSTILE, 'requires-action-tea-kettle');
    expect(
      (
        await hostile.call('POST', `/v1/checkouts/${hostile.checkout.id}/user_input`, {
          fields: { code: '424242' },
        })
      ).status,
    ).toBe(200);
    const confirmed = await hostile.call('POST', `/v1/checkouts/${hostile.checkout.id}/confirm`, undefined, {
      'idempotency-key': 'confirm-1',
    });
    expect(confirmed.body.status).toBe('completed');
    completed = confirmed.body;
    buyer = hostile.call;
    pending = (await buy('plain-user', 'requires-action-teapot')).checkout;
    await (svc.handle as CommerceServiceHandle).dispatcher.runDue();

    page = await browser().page();
    problems = watchProblems(page);
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await svc?.close();
  });

  const rows = (table: string) => page.locator(`#${table} tbody tr`);
  /** The given columns of each row, rows sorted. */
  const cells = async (table: string, columns: number[]) => {
    const out: string[][] = [];
    for (const row of await rows(table).all())
      out.push(
        await Promise.all(
          columns.map(async (n) => (await row.locator(`td:nth-child(${n})`).textContent()) ?? ''),
        ),
      );
    return out.sort();
  };
  const column = (table: string, n: number) =>
    page.locator(`#${table} tbody tr td:nth-child(${n})`).allTextContents();

  it('lists checkouts, orders and users with the states the REST API reports, and runs none of their text', async () => {
    await page.goto(`${svc.url}/dashboard`);
    // The test clock stands still, so rows made in the same instant come in either order.
    expect(await cells('checkouts', [1, 2])).toEqual(
      [
        [pending.id, pending.status],
        [completed.id, 'completed'],
      ].sort(),
    );
    expect(await column('orders', 1)).toEqual([completed.order_id]);
    const order = await buyer('GET', `/v1/orders/${completed.order_id}`);
    expect(await column('orders', 2)).toEqual([order.body.status]);
    expect(await cells('users', [1, 3, 4])).toEqual(
      [
        [HOSTILE, '1', '1'],
        ['plain-user', '1', '0'],
      ].sort(),
    );

    // The hostile id is text everywhere it shows: no element made from it, no script ran.
    await expect(page.locator('main img, main script').count()).resolves.toBe(0);
    expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
    await expect(rows('checkouts').filter({ hasText: completed.id }).textContent()).resolves.toContain(
      HOSTILE,
    );
  });

  it('filters by state, user, environment and date, and says what is wrong with a bad filter', async () => {
    browser();
    await page.goto(`${svc.url}/dashboard`);
    await page.getByLabel('State').selectOption('completed');
    await Promise.all([
      page.waitForURL(/state=completed/),
      page.getByRole('button', { name: 'Filter' }).click(),
    ]);
    expect(await column('checkouts', 1)).toEqual([completed.id]);
    await expect(page.getByLabel('State').inputValue()).resolves.toBe('completed');

    // The user link filters by that user, through a correctly encoded query.
    await page.goto(`${svc.url}/dashboard`);
    await Promise.all([
      page.waitForURL(/user=/),
      rows('users').filter({ hasText: 'plain-user' }).getByRole('link').click(),
    ]);
    expect(await column('checkouts', 1)).toEqual([pending.id]);
    expect(await column('orders', 1)).toEqual(['No orders match.']);
    await page.goto(`${svc.url}/dashboard?user=${encodeURIComponent(HOSTILE)}`);
    expect(await column('checkouts', 1)).toEqual([completed.id]);
    await expect(page.getByLabel('User (your user id)').inputValue()).resolves.toBe(HOSTILE);

    await page.goto(`${svc.url}/dashboard?env=live`);
    expect(await column('checkouts', 1)).toEqual(['No checkouts match.']);
    const day = completed.created_at.slice(0, 10);
    await page.goto(`${svc.url}/dashboard?from=${day}&to=${day}`);
    expect(await rows('checkouts').count()).toBe(2);
    const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    await page.goto(`${svc.url}/dashboard?from=${next}`);
    expect(await column('checkouts', 1)).toEqual(['No checkouts match.']);

    const bad = await page.goto(`${svc.url}/dashboard?from=2026-02-30`);
    expect(bad?.status()).toBe(400);
    await expect(page.locator('#filter-error').textContent()).resolves.toBe(
      'Dates must be real days written YYYY-MM-DD.',
    );
    const state = await page.goto(`${svc.url}/dashboard?state=${encodeURIComponent('<b>x</b>')}`);
    expect(state?.status()).toBe(400);
    await expect(page.locator('#filter-error').textContent()).resolves.toMatch(
      /^State must be one of: building,/,
    );
    await expect(page.locator('main b').count()).resolves.toBe(0);
  });

  it('links each checkout to its events and webhook deliveries, which are the ones the receiver got', async () => {
    browser();
    await page.goto(`${svc.url}/dashboard`);
    await Promise.all([
      page.waitForURL(/\/dashboard\/checkouts\//),
      page.locator('#checkouts').getByRole('link', { name: completed.id }).click(),
    ]);
    await expect(page.locator('h1').textContent()).resolves.toBe(`Checkout ${completed.id}`);
    const delivered = receiver.received.filter((r: Received) =>
      JSON.stringify(r.event.data).includes(completed.id),
    );
    const ids = [...new Set(delivered.map((r) => r.event.id as string))].sort();
    expect(ids.length).toBeGreaterThan(0);
    expect((await column('events', 1)).sort()).toEqual(ids);
    expect(await column('events', 2)).toContain('checkout.completed');
    expect(
      (await page.locator('#deliveries tbody tr td:nth-child(1) code').allTextContents()).sort(),
    ).toEqual(ids);
    expect(new Set(await column('deliveries', 3))).toEqual(new Set(['succeeded']));

    await Promise.all([
      page.waitForURL(/\/dashboard\/orders\//),
      page.locator('main').getByRole('link', { name: completed.order_id }).click(),
    ]);
    await expect(page.locator('h1').textContent()).resolves.toBe(`Order ${completed.order_id}`);
    expect(await column('events', 2)).toContain('order.updated');

    const unknown = await page.goto(`${svc.url}/dashboard/checkouts/chk_${'x'.repeat(20)}`);
    expect(unknown?.status()).toBe(404);
    await expect(page.locator('main').textContent()).resolves.toContain(
      `No checkout with id 'chk_${'x'.repeat(20)}'.`,
    );
  });

  it('resends from a checkout or order page and comes back to that page, with the outcome by its deliveries', async () => {
    browser();
    for (const [kind, id] of [
      ['checkouts', completed.id],
      ['orders', completed.order_id],
    ] as const) {
      const path = `/dashboard/${kind}/${id}`;
      await page.goto(`${svc.url}${path}`);
      const rowsBefore = await rows('deliveries').count();
      const eventId =
        (await page.locator('#deliveries tbody tr td:nth-child(1) code').first().textContent()) ?? '';
      const before = receiver.received.filter((r) => r.event.id === eventId).length;
      await Promise.all([
        page.waitForURL((u) => u.pathname === path && u.searchParams.has('ok')),
        rows('deliveries').first().getByRole('button', { name: 'Resend' }).click(),
      ]);
      expect(new URL(page.url()).hash).toBe('#webhook-deliveries');
      await expect(page.locator('h1').textContent()).resolves.toContain(id);
      // The outcome sits between the deliveries' heading and their table, not at the top of the page.
      await expect(page.locator('#webhook-deliveries + [role="status"]').textContent()).resolves.toBe(
        'Resent to 1 endpoint(s).',
      );
      expect(await rows('deliveries').count()).toBe(rowsBefore + 1);
      expect(receiver.received.filter((r) => r.event.id === eventId).length).toBe(before + 1);
    }

    // A return_to that is not one of the dashboard's own checkout or order pages is ignored.
    const [event] = receiver.received.filter((r) => r.event.type === 'checkout.completed');
    for (const elsewhere of ['https://evil.example/x', '//evil.example/x', '/dashboard/checkouts/../../v1']) {
      const res = await fetch(`${svc.url}/dashboard/events/${event?.event.id}/resend`, {
        method: 'POST',
        body: new URLSearchParams({ endpoint_id: endpoint.id, return_to: elsewhere }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        redirect: 'manual',
      });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toMatch(/^\/dashboard\?ok=/);
    }
  });

  it('never resends an event to an endpoint of the other environment', async () => {
    browser();
    const live = await api(svc.url, 'POST', '/dashboard/api/webhook_endpoints', {
      body: { env: 'live', url: receiver.url },
    });
    expect(live.status).toBe(201);
    const [event] = receiver.received.filter((r) => r.event.type === 'checkout.completed');
    const before = receiver.received.length;
    const res = await fetch(`${svc.url}/dashboard/events/${event?.event.id}/resend`, {
      method: 'POST',
      body: `endpoint_id=${live.body.id}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get('location') ?? '', svc.url).searchParams.get('error')).toBe(
      `No webhook endpoint with id '${live.body.id}' in the event's environment.`,
    );
    expect(receiver.received.length).toBe(before);
    expect((await api(svc.url, 'DELETE', `/dashboard/api/webhook_endpoints/${live.body.id}`)).status).toBe(
      200,
    );
  });

  it('keeps webhook secrets out of the page until someone asks, and refuses a cross-site ask', async () => {
    browser();
    const raw = await api(svc.url, 'GET', '/dashboard');
    expect(raw.body).not.toContain(endpoint.secret);
    // Nor does the dashboard's JSON list of endpoints carry it.
    const listed = await api(svc.url, 'GET', '/dashboard/api/webhook_endpoints');
    expect(listed.body.endpoints.map((e: { id: string }) => e.id)).toContain(endpoint.id);
    expect(JSON.stringify(listed.body)).not.toContain(endpoint.secret);
    await page.goto(`${svc.url}/dashboard`);
    expect(await page.content()).not.toContain(endpoint.secret);
    await Promise.all([
      page.waitForURL(/\/secret$/),
      page.getByRole('button', { name: `Reveal secret of the sandbox endpoint ${receiver.url}` }).click(),
    ]);
    await expect(page.locator('#endpoint-secret').textContent()).resolves.toBe(endpoint.secret);

    for (const headers of [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<
      string,
      string
    >[]) {
      const forged = await api(svc.url, 'POST', `/dashboard/endpoints/${endpoint.id}/secret`, { headers });
      expect(forged.status).toBe(403);
      expect(JSON.stringify(forged.body)).not.toContain(endpoint.secret);
    }
  });

  it("shows times in the viewer's zone, and says which", async () => {
    const context = await browser().browser.newContext({ timezoneId: 'America/New_York', locale: 'en-US' });
    try {
      const local = await context.newPage();
      await local.goto(`${svc.url}/dashboard`);
      await expect(local.locator('[data-zone]').first().textContent()).resolves.toBe('America/New_York');
      const cell = local.locator('#checkouts tbody tr', { hasText: completed.id }).locator('time');
      await expect(cell.getAttribute('datetime')).resolves.toBe(completed.created_at);
      const expected = new Intl.DateTimeFormat('en-US', {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: 'America/New_York',
      }).format(new Date(completed.created_at));
      await expect(cell.textContent()).resolves.toBe(expected);
    } finally {
      await context.close();
    }
  });

  it('fits a 390 px phone: tables scroll inside themselves, the page never sideways', async () => {
    browser();
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of [
      '/dashboard',
      `/dashboard/checkouts/${completed.id}`,
      `/dashboard/orders/${completed.order_id}`,
    ]) {
      await page.goto(`${svc.url}${path}`);
      const fit = await page.evaluate(() => ({
        sideways: document.documentElement.scrollWidth - window.innerWidth,
        unboxed: [...document.querySelectorAll('table')].filter(
          (t) => !getComputedStyle(t.parentElement as Element).overflowX.match(/auto|scroll/),
        ).length,
      }));
      expect({ path, ...fit }).toEqual({ path, sideways: 0, unboxed: 0 });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    browser();
    expect(problems).toEqual([]);
  });
});
