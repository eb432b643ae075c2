import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, watchProblems } from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/**
 * The app by keyboard (issue 22, item 6): the approval queue's shortcuts (J, K, A, E, R) that do
 * nothing inside a text field, Reject putting the focus in the reason field, Escape cancelling an
 * edit, and the page heading taking the focus after navigation. Outcomes are read back through
 * the REST API.
 */
describe('the web app by keyboard', { timeout: 60_000 }, () => {
  let svc: TestService;
  let page: Page;
  let problems: string[] = [];
  const ids: string[] = [];
  const texts = [
    'First: what a week without standups taught us.',
    'Second: three ways to run a standup in writing.',
    'Third: the one question every status update answers.',
  ];
  const browser = useBrowser();
  const approval = async (id: string) => (await api(svc.url, 'GET', `/v1/approvals/${id}`)).body;
  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      return { tag: el?.tagName ?? '', id: el?.id ?? '', text: el?.textContent?.slice(0, 60) ?? '' };
    });
  /** Waits until the focus is in the element `selector` names. */
  const focusIn = (selector: string) =>
    page.waitForFunction((s) => document.activeElement?.matches(s) === true, selector);

  beforeAll(async () => {
    svc = await startTestService('content');
    await (svc.handle as { ready?: Promise<void> }).ready;
    const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
    await api(svc.url, 'POST', `/v1/brands/${brand.body.id}/channels/connect`, { body: { platform: 'x' } });
    for (const text of texts) {
      const draft = await api(svc.url, 'POST', '/v1/drafts', {
        body: { brand_id: brand.body.id, platform: 'x', text },
      });
      const res = await api(svc.url, 'POST', '/v1/approvals', {
        body: { draft_id: draft.body.id, reason: 'Plan' },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
      svc.clock.advance(60_000);
    }
    page = await browser().page();
    problems = watchProblems(page);
    await page.setViewportSize({ width: 1280, height: 900 });
  });
  afterAll(() => svc?.close());

  it('moves through the queue with J and K, and edits with E; Escape cancels the edit and changes nothing', async () => {
    await page.goto(`${svc.url}/`);
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    // The heading is drawn before the queue has loaded: J on an empty queue does nothing.
    await page
      .locator('.queue-pending > li > article')
      .nth(texts.length - 1)
      .waitFor();
    const order = await page
      .locator('.queue-pending > li > article')
      .evaluateAll((cards) => cards.map((c) => c.id));
    expect(order).toHaveLength(3);
    await page.keyboard.press('j');
    await focusIn(`#${order[0]}`);
    await page.keyboard.press('j');
    await focusIn(`#${order[1]}`);
    await page.keyboard.press('k');
    await focusIn(`#${order[0]}`);

    const first = order[0]?.replace('approval-', '') as string;
    const before = await approval(first);
    await page.keyboard.press('e');
    await focusIn(`#${order[0]} .edit-form textarea`);
    // Letters typed in the text are text, not shortcuts: nothing is approved or rejected.
    await page.keyboard.type(' Jar, kettle, apron, rake.');
    expect(await page.locator(`#${order[0]} .edit-form textarea`).inputValue()).toBe(
      `${before.draft.parts[0].text} Jar, kettle, apron, rake.`,
    );
    await page.keyboard.press('Escape');
    await page.locator(`#${order[0]} .edit-form`).waitFor({ state: 'detached' });
    await focusIn(`#${order[0]} [data-shortcut="edit"]`);
    const after = await approval(first);
    expect(after.status).toBe('pending');
    expect(after.draft.parts[0].text).toBe(before.draft.parts[0].text);
    for (const id of ids) expect((await approval(id)).status).toBe('pending');
  });

  it('rejects with R: the focus is in the reason field, and letters typed there stay text', async () => {
    const card = page.locator('.queue-pending > li > article').nth(1);
    const id = ((await card.getAttribute('id')) as string).replace('approval-', '');
    await card.focus();
    await page.keyboard.press('r');
    await focusIn(`#approval-${id} .reject-form textarea`);
    expect((await focused()).tag).toBe('TEXTAREA');
    await page.keyboard.type('Already said last week, and reads like an ad.');
    await card.getByRole('button', { name: 'Reject', exact: true }).click();
    // The outcome shows in the card that asked for it.
    await page
      .locator(`#approval-${id}`)
      .getByRole('status')
      .filter({ hasText: 'Rejected the post for X' })
      .waitFor();
    expect(await approval(id)).toMatchObject({
      status: 'rejected',
      decision_reason: 'Already said last week, and reads like an ad.',
    });
    const others = ids.filter((i) => i !== id);
    for (const other of others) expect((await approval(other)).status).toBe('pending');
  });

  it('approves the card in focus with A, and the focus goes on to the next card', async () => {
    const cards = page.locator('.queue-pending > li > article');
    // "Rejected" is said before the queue has reloaded: the rejected card leaves it just after.
    await expect.poll(() => cards.count()).toBe(2);
    const [top, next] = await cards.evaluateAll((cs) => cs.map((c) => c.id));
    await page.locator(`#${top}`).focus();
    await page.keyboard.press('a');
    await page
      .locator(`#${top}`)
      .getByRole('status')
      .filter({ hasText: 'Approved the post for X' })
      .waitFor();
    expect((await approval((top as string).replace('approval-', ''))).status).toBe('approved');
    await focusIn(`#${next}`);
    expect((await approval((next as string).replace('approval-', ''))).status).toBe('pending');
    await expectAccessible(page);
  });

  it('puts the focus on the page heading after moving to another page', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Posts' }).click();
    await page.getByRole('heading', { name: 'Posts', level: 1 }).waitFor();
    await focusIn('main h1');
    expect((await focused()).text).toBe('Posts');
    await page.goBack();
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    await focusIn('main h1');
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    browser();
    expect(problems).toEqual([]);
  });
});
