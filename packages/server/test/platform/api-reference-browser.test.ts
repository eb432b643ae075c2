import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowser } from '../helpers/browser.js';
import { startTestService, type TestService } from '../helpers/start.js';

/**
 * /docs in a real Chromium: the reference renders with no console error at all (a CSP refusal
 * is one) and every request it makes stays on the server's own origin.
 */
describe.each(['content', 'commerce'] as const)('the %s API reference in a real browser', (name) => {
  let svc: TestService;
  const browser = useBrowser();
  beforeAll(async () => {
    svc = await startTestService(name);
  });
  afterAll(() => svc.close());

  it('loads with no console error and no request leaving the origin', async () => {
    const page = await browser().page();
    page.setDefaultTimeout(60_000);
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    const requests: string[] = [];
    page.on('request', (r) => {
      requests.push(r.url());
    });

    await page.goto(`${svc.url}/docs`);
    await page.getByText('API docs by Redocly').waitFor();
    // The footer's logo is the one image Redoc asks for, after it has rendered.
    await page.waitForLoadState('networkidle');

    expect(errors).toEqual([]);
    const origin = new URL(svc.url).origin;
    const elsewhere = requests.filter((u) => !u.startsWith(`${origin}/`) && !/^(blob|data):/.test(u));
    expect(elsewhere).toEqual([]);
    expect(requests).toContain(`${origin}/docs/logo-mini.svg`);
    // And it is shown: Redoc hides the image when it fails to load.
    expect(
      await page.locator('img[alt="redocly logo"]').evaluate((img: HTMLImageElement) => img.naturalWidth),
    ).toBeGreaterThan(0);
    await page.close();
  }, 120_000);
});
