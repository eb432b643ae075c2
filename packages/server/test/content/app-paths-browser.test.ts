import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchProblems } from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/**
 * Reload, a bookmark or a new tab opens a detail page by its URL, and ids have capitals
 * (`drf_4fW9…`): the page must load the app, and an unknown path the app's own not-found page.
 */
describe('the web app: page paths opened directly in a real browser', () => {
  let svc: TestService;
  const browser = useBrowser();
  beforeAll(async () => {
    svc = await startTestService('content');
  });
  afterAll(() => svc.close());

  it('opens a draft by its URL, and shows "Page not found" for a path it does not know', async () => {
    const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Reloaded' } });
    const draft = await api(svc.url, 'POST', '/v1/drafts', {
      body: { brand_id: brand.body.id, platform: 'x', text: 'A draft opened from a bookmark' },
    });
    expect(draft.body.id).toMatch(/[A-Z]/);

    const page = await browser().page();
    const problems = watchProblems(page);
    page.setDefaultTimeout(20_000);
    const opened = await page.goto(`${svc.url}/drafts/${draft.body.id}`);
    expect(opened?.status()).toBe(200);
    await page.getByRole('heading', { name: 'X draft', level: 1 }).waitFor();
    expect(await page.locator('textarea').first().inputValue()).toBe('A draft opened from a bookmark');

    await page.goto(`${svc.url}/Drafts/nope`);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    expect(await page.title()).toBe('Page not found · svc');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
