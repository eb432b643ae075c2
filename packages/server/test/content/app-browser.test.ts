import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_LIMITS } from '../../src/content/domain.js';
import { expectAccessible, expectFitsPhone, screenshot, watchProblems } from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

const HOUR = 3_600_000;

/**
 * The approval queue driven by a real Chromium against a real server: every click goes through
 * the app, the content client and the REST API, and every effect is checked through the API.
 */
describe('the web app: approvals in a real browser', () => {
  let svc: TestService;
  let page: Page;
  let problems: string[] = [];
  const ids = {} as Record<'stale' | 'edit' | 'reject' | 'bulk1' | 'bulk2', string>;
  /** The first words of each proposal's text → its approval id. */
  const texts = new Map<string, string>();
  const browser = useBrowser();

  async function propose(brandId: string, platform: string, text: string, reason: string, assetId?: string) {
    const draft = await api(svc.url, 'POST', '/v1/drafts', { body: { brand_id: brandId, platform, text } });
    expect(draft.status).toBe(201);
    if (assetId) {
      const attached = await api(svc.url, 'POST', `/v1/drafts/${draft.body.id}/media`, {
        body: { asset_id: assetId },
      });
      expect(attached.status).toBe(200);
    }
    const res = await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: draft.body.id, reason } });
    expect(res.status).toBe(201);
    texts.set(text.split(':')[0] ?? text, res.body.id);
    // A minute apart, so the queue's order (and with it the screenshots) is the same every run.
    svc.clock.advance(60_000);
    return res.body.id as string;
  }
  const approval = async (id: string) => (await api(svc.url, 'GET', `/v1/approvals/${id}`)).body;
  /** The card of the approval proposed with `text` (while editing, the text is in a text box). */
  const card = (text: string) => page.locator(`#approval-${texts.get(text)}`);
  const notice = (text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();

  beforeAll(async () => {
    svc = await startTestService('content');
    await (svc.handle as { ready?: Promise<void> }).ready;
    const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
    for (const platform of ['x', 'linkedin'])
      await api(svc.url, 'POST', `/v1/brands/${brand.body.id}/channels/connect`, { body: { platform } });
    const b = brand.body.id as string;
    // Proposed first, then the manager comes back after its slot: the queue flags it as stale.
    ids.stale = await propose(
      b,
      'linkedin',
      'Stale: what we learned from a week without standups.',
      'Weekly plan',
    );
    const slot = Date.parse((await approval(ids.stale)).slot);
    svc.clock.advance(slot - svc.clock.now().getTime() + 2 * HOUR);
    ids.edit = await propose(b, 'x', 'Edit me: three ways to run a standup in writing.', 'Trending topic');
    ids.reject = await propose(b, 'x', 'Reject me: synergy is the answer to every meeting.', 'Filler');
    ids.bulk1 = await propose(b, 'linkedin', 'Bulk one: how our team lead runs async check-ins.', 'Series');
    const image = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#2b6cb0' } })
      .jpeg()
      .toBuffer();
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(image)], { type: 'image/jpeg' }), 'team.jpg');
    const asset = await fetch(`${svc.url}/v1/brands/${b}/media`, { method: 'POST', body: form });
    expect(asset.status).toBe(201);
    const assetId = ((await asset.json()) as { id: string }).id;
    ids.bulk2 = await propose(
      b,
      'x',
      'Bulk two: the one question every status update answers.',
      'Series',
      assetId,
    );
  });
  afterAll(() => svc?.close());

  it('shows the queue, pending first, with counts, the mode and each approval in full', async () => {
    page = await browser().page();
    problems = watchProblems(page);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${svc.url}/`);
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    await card('Bulk two').waitFor();

    const { counts } = (await api(svc.url, 'GET', '/v1/approvals')).body;
    expect(await page.locator('.counts').textContent()).toBe(
      `${counts.pending} pending · ${counts.approved} approved · ${counts.rejected} rejected`,
    );
    expect(counts.pending).toBeGreaterThanOrEqual(5);
    // The mode label has a GET /v1/mode of its own, which may answer after the queue's.
    await page.getByRole('banner').getByText('sandbox · simulated').waitFor();
    expect(await page.getByRole('link', { name: 'Approvals' }).getAttribute('aria-current')).toBe('page');

    const x = card('Edit me');
    const text = 'Edit me: three ways to run a standup in writing.';
    expect(await x.textContent()).toContain(`${[...text].length} / ${PLATFORM_LIMITS.x} characters`);
    expect(await x.getByRole('heading').textContent()).toContain('X fieldnote');
    expect(await x.textContent()).toContain('Trending topic');
    expect(await x.textContent()).toContain('Proposed bya person (in the app or through the REST API)');
    expect(await x.textContent()).toMatch(/Voice check\s*Passed5 checks passed/);
    // The media crop thumbnail, loaded from the part's media URL under the page's CSP.
    const thumb = card('Bulk two').getByRole('img');
    expect(await thumb.getAttribute('alt')).toMatch(/^Attached image, \w+ crop$/);
    await page.waitForFunction((id) => {
      const img = document.querySelector<HTMLImageElement>(`#approval-${id} img`);
      return img?.complete && img.naturalWidth > 0;
    }, ids.bulk2);
    expect(await card('Stale').textContent()).toContain(
      'This slot has passed. Approving schedules it into the next free best-time slot on this channel.',
    );

    await screenshot(page, 'approvals-desktop');
    await expectFitsPhone(page, 'approvals-390');
  });

  it('has no serious or critical accessibility violations (axe-core)', async () => {
    browser();
    await expectAccessible(page);
  });

  it('approves a stale approval with its "Approve" button, which re-slots it', async () => {
    browser();
    const before = await approval(ids.stale);
    await card('Stale').getByRole('button', { name: 'Approve', exact: true }).click();
    await notice('Approved the post');
    const after = await approval(ids.stale);
    expect(after).toMatchObject({ status: 'approved', slot_passed: false });
    expect(Date.parse(after.slot)).toBeGreaterThan(Date.parse(before.slot));
    expect((await api(svc.url, 'GET', `/v1/posts/${after.post_id}`)).body.status).toBe('scheduled');
    expect(await page.getByRole('list', { name: 'Decided approvals' }).textContent()).toContain('Stale:');
  });

  it('shows a refused edit in words with the request id, and changes nothing', async () => {
    browser();
    await card('Edit me').getByRole('button', { name: 'Edit', exact: true }).click();
    const box = card('Edit me').getByLabel('Post text');
    await box.fill(`Edit me: ${'x'.repeat(PLATFORM_LIMITS.x)}`);
    expect(await card('Edit me').textContent()).toContain('over the limit');
    await card('Edit me').getByRole('button', { name: 'Save and approve' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Request id: req_/);
    expect(await approval(ids.edit)).toMatchObject({ status: 'pending' });
  });

  it('edits the text, then approves it', async () => {
    browser();
    const edited = 'Edit me: two ways to run a standup in writing, and why we kept one.';
    await card('Edit me').getByLabel('Post text').fill(edited);
    await card('Edit me').getByRole('button', { name: 'Save and approve' }).click();
    await notice('Saved your edit and approved');
    const after = await approval(ids.edit);
    expect(after.status).toBe('approved');
    expect(after.draft.parts.map((p: { text: string }) => p.text)).toEqual([edited]);
    const post = (await api(svc.url, 'GET', `/v1/posts/${after.post_id}`)).body;
    expect(JSON.stringify(post)).toContain(edited);
  });

  it('rejects with a reason', async () => {
    browser();
    await card('Reject me').getByRole('button', { name: 'Reject', exact: true }).click();
    await card('Reject me').getByLabel('Reason for rejecting').fill('Uses a banned word.');
    await card('Reject me').getByRole('button', { name: 'Reject', exact: true }).click();
    await notice('Rejected the post');
    expect(await approval(ids.reject)).toMatchObject({
      status: 'rejected',
      decision_reason: 'Uses a banned word.',
    });
  });

  it('approves two in bulk', async () => {
    browser();
    await card('Bulk one').getByRole('checkbox').check();
    await card('Bulk two').getByRole('checkbox').check();
    expect(await page.getByRole('group', { name: 'Bulk actions' }).textContent()).toContain('2 selected');
    await page.getByRole('button', { name: 'Approve selected' }).click();
    await notice('Approved 2 approvals');
    for (const id of [ids.bulk1, ids.bulk2]) expect((await approval(id)).status).toBe('approved');
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    browser();
    expect(problems).toEqual([]);
  });

  it('opens a client-side page by its URL, and says so when there is none', async () => {
    browser();
    await page.goto(`${svc.url}/approvals`);
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    await page.goto(`${svc.url}/nowhere`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Go to Approvals' }).click();
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
  });
});
