import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_LIMITS } from '../../src/content/domain.js';
import { expectAccessible, expectFitsPhone, watchProblems } from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/** Each step drives several pages on a shared 2-core machine. */
const STEP = 90_000;

/**
 * Issue 22, items 4, 5, 8 and 11, in a real Chromium against a real server: the post previewed
 * as each platform shows it (thread posts, LinkedIn's fold, crops), edited in place and saved
 * without approving; media uploaded from the draft editor; outcomes beside their controls, work
 * in progress on the buttons, typed text kept after a failure, a spinner on a slow network;
 * plurals and rejected drafts. Every effect is checked through the REST API as well as on screen.
 */
describe('the web app: previews, uploads in the editor, feedback in place', () => {
  let svc: TestService;
  let page: Page;
  let problems: string[] = [];
  let brandId = '';
  const ids = {} as Record<'xDraft' | 'xApproval' | 'liDraft' | 'liApproval' | 'plainDraft', string>;
  const browser = useBrowser();
  const get = async (path: string) => {
    const res = await api(svc.url, 'GET', path);
    expect(res.status, path).toBe(200);
    return res.body;
  };
  const status = (where: Locator | Page, text: string) =>
    where.getByRole('status').filter({ hasText: text }).first().waitFor();
  /** A 1200×800 picture; `transparent` punches a see-through hole in it (so it must stay a PNG). */
  const png = (transparent: boolean) =>
    sharp({
      create: {
        width: 1200,
        height: 800,
        channels: 4,
        background: { r: 43, g: 108, b: 176, alpha: 1 },
      },
    })
      .composite(
        transparent
          ? [
              {
                input: {
                  create: {
                    width: 300,
                    height: 300,
                    channels: 4,
                    background: { r: 0, g: 0, b: 0, alpha: 0 },
                  },
                },
                blend: 'dest-in',
                left: 100,
                top: 100,
              },
            ]
          : [],
      )
      .png()
      .toBuffer();
  /** Vertical order on the page: a's top is above b's. */
  const above = async (a: Locator, b: Locator) => {
    const [ba, bb] = [await a.boundingBox(), await b.boundingBox()];
    if (!ba || !bb) throw new Error('an element has no box');
    return ba.y < bb.y;
  };

  const LINKEDIN_TEXT = [
    'We stopped holding standups.',
    'Nothing broke.',
    'Here is what we did instead, and what it cost us.',
    'First, everyone writes three lines by ten.',
    'Second, blockers go in a shared doc, not a meeting.',
  ].join('\n');

  beforeAll(async () => {
    svc = await startTestService('content');
    await (svc.handle as { ready?: Promise<void> }).ready;
    brandId = (await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } })).body.id;
    for (const platform of ['x', 'linkedin'])
      await api(svc.url, 'POST', `/v1/brands/${brandId}/channels/connect`, { body: { platform } });

    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await png(false))], { type: 'image/png' }), 'desk.png');
    const asset = await fetch(`${svc.url}/v1/brands/${brandId}/media`, { method: 'POST', body: form });
    expect(asset.status).toBe(201);
    const assetId = ((await asset.json()) as { id: string }).id;

    const x = await api(svc.url, 'POST', '/v1/drafts', {
      body: {
        brand_id: brandId,
        platform: 'x',
        parts: [
          { text: 'Thread: we wrote our standups down for a month.' },
          { text: 'Here is what changed.' },
        ],
      },
    });
    ids.xDraft = x.body.id;
    expect(
      (await api(svc.url, 'POST', `/v1/drafts/${ids.xDraft}/media`, { body: { asset_id: assetId } })).status,
    ).toBe(200);
    ids.xApproval = (await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: ids.xDraft } })).body.id;
    svc.clock.advance(60_000);
    ids.liDraft = (
      await api(svc.url, 'POST', '/v1/drafts', {
        body: { brand_id: brandId, platform: 'linkedin', text: LINKEDIN_TEXT },
      })
    ).body.id;
    ids.liApproval = (
      await api(svc.url, 'POST', '/v1/approvals', { body: { draft_id: ids.liDraft } })
    ).body.id;
    ids.plainDraft = (
      await api(svc.url, 'POST', '/v1/drafts', {
        body: { brand_id: brandId, platform: 'x', text: 'A draft with nothing attached yet.' },
      })
    ).body.id;
  });
  afterAll(() => svc?.close());

  it(
    'item 4: the approval card previews an X thread post by post with its crop, and folds LinkedIn at "see more"',
    async () => {
      page = await browser().page();
      problems = watchProblems(page);
      page.setDefaultTimeout(20_000);
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${svc.url}/`);
      const xCard = page.locator(`#approval-${ids.xApproval}`);
      const preview = xCard.getByRole('region', { name: 'Preview on X' });
      await preview.waitFor();

      // As the publisher sends it: one post per stored part, in order, the media on the first.
      const approval = await get(`/v1/approvals/${ids.xApproval}`);
      const posts = preview.locator('.preview-post');
      expect(await posts.count()).toBe(approval.draft.parts.length);
      expect(await preview.textContent()).toContain('a thread of 2 posts');
      for (const [i, part] of approval.draft.parts.entries()) {
        expect(await posts.nth(i).locator('.preview-text').textContent()).toBe(part.text);
        expect(await posts.nth(i).textContent()).toContain(`Post ${i + 1} of 2`);
      }
      // The crop X shows: the wide (16:9) variant the server attached, drawn at 16:9.
      expect(approval.draft.parts[0].media[0].variant).toBe('wide');
      const img = posts.nth(0).locator('img');
      expect(await img.getAttribute('alt')).toBe('Attached image, wide crop');
      await page.waitForFunction(
        (id) =>
          (document.querySelector(`#approval-${id} .preview-crop img`) as HTMLImageElement)?.naturalWidth > 0,
        ids.xApproval,
      );
      const box = await img.boundingBox();
      expect((box?.width ?? 0) / (box?.height ?? 1)).toBeCloseTo(16 / 9, 1);
      expect(await posts.nth(0).locator('figcaption').textContent()).toBe('X shows this image wide, 16:9.');
      expect(await posts.nth(1).locator('img').count()).toBe(0);

      // LinkedIn folds after three lines: the fourth line is behind "see more" until opened.
      const liCard = page.locator(`#approval-${ids.liApproval}`);
      const folded = liCard.getByRole('region', { name: 'Preview on LinkedIn' });
      const shown = (await folded.locator('.preview-text').textContent()) ?? '';
      expect(shown).toBe(`${LINKEDIN_TEXT.split('\n').slice(0, 3).join('\n')}… see more`);
      await folded.getByRole('button', { name: 'see more' }).click();
      expect(await folded.locator('.preview-text').textContent()).toBe(LINKEDIN_TEXT);
      expect((await get(`/v1/approvals/${ids.liApproval}`)).draft.parts[0].text).toBe(LINKEDIN_TEXT);
      await expectAccessible(page);
      await expectFitsPhone(page);
    },
    STEP,
  );

  it(
    'item 4: edits in place with a growing text box and a live preview and length, and saves without approving',
    async () => {
      browser();
      const card = page.locator(`#approval-${ids.xApproval}`);
      await card.getByRole('button', { name: 'Edit' }).click();
      const box = card.getByLabel('Part 1 text');
      const before = await box.evaluate((el) => el.getBoundingClientRect().height);
      const long = [
        'One.',
        'Two: the second line.',
        'Three.',
        'Four.',
        'Five.',
        'Six.',
        'Seven.',
        'Eight, the end.',
      ].join('\n');
      await box.fill(long);
      // The box grew to the text: taller than before, and nothing scrolls inside it.
      const after = await box.evaluate((el) => ({
        height: el.getBoundingClientRect().height,
        hidden: el.scrollHeight - el.clientHeight,
      }));
      expect(after.height).toBeGreaterThan(before);
      expect(after.hidden).toBeLessThanOrEqual(1);
      // The length and the preview follow the typing.
      await card.getByText(`Part 1: ${[...long].length} / ${PLATFORM_LIMITS.x} characters`).waitFor();
      expect(await card.locator('.preview-post').first().locator('.preview-text').textContent()).toBe(long);
      await box.fill('x'.repeat(PLATFORM_LIMITS.x + 3));
      await card
        .getByText(`${PLATFORM_LIMITS.x + 3} / ${PLATFORM_LIMITS.x} characters — 3 over the limit`)
        .waitFor();
      await box.fill(long);

      await card.getByRole('button', { name: 'Save without approving' }).click();
      await status(card, 'still waiting for approval');
      const saved = await get(`/v1/approvals/${ids.xApproval}`);
      expect(saved.status).toBe('pending');
      expect(saved.draft.parts.map((p: { text: string }) => p.text)).toEqual([long, 'Here is what changed.']);
      expect((await get(`/v1/drafts/${ids.xDraft}`)).parts[0].text).toBe(long);
      // Back to the preview, showing what was saved.
      expect(await card.locator('.preview-post').first().locator('.preview-text').textContent()).toBe(long);
    },
    STEP,
  );

  it(
    'item 4: the draft editor previews the text as it is typed, LinkedIn fold included, and saves a version',
    async () => {
      browser();
      await page.goto(`${svc.url}/drafts/${ids.liDraft}`);
      await page.getByRole('heading', { name: 'LinkedIn draft', level: 1 }).waitFor();
      const preview = page.getByRole('region', { name: 'Preview on LinkedIn' });
      const text = `${'A long opening line that keeps going so the fold lands inside it, '.repeat(4)}and ends here.`;
      await page.getByLabel('Post text').fill(text);
      const shown = ((await preview.locator('.preview-text').textContent()) ?? '').replace(/… see more$/, '');
      // About 210 characters, cut between words.
      expect([...shown].length).toBeLessThanOrEqual(210);
      expect([...shown].length).toBeGreaterThan(150);
      expect(text.startsWith(shown)).toBe(true);
      expect(text[shown.length]).toBe(' ');
      await page.getByText(`Length: ${[...text].length} / ${PLATFORM_LIMITS.linkedin} characters`).waitFor();
      const version = (await get(`/v1/drafts/${ids.liDraft}`)).version;
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await status(page, 'Saved a new version');
      const draft = await get(`/v1/drafts/${ids.liDraft}`);
      expect(draft.version).toBe(version + 1);
      expect(draft.parts[0].text).toBe(text);
    },
    STEP,
  );

  it(
    'item 8: uploads from the draft editor, attaches it, titles it with the file name, and says why a PNG became a JPEG',
    async () => {
      browser();
      await page.goto(`${svc.url}/drafts/${ids.plainDraft}`);
      await page.getByRole('heading', { name: 'X draft', level: 1 }).waitFor();
      const before = (await get(`/v1/brands/${brandId}/media`)).media.length;
      await page.getByLabel('Upload a new file').setInputFiles({
        name: 'launch photo.png',
        mimeType: 'image/png',
        buffer: await png(false),
      });
      const said = page.getByRole('status').filter({ hasText: 'Uploaded launch photo.png and attached it' });
      await said.waitFor();
      expect(await said.textContent()).toContain('It was saved as a JPEG: the PNG has no transparency');
      // Next to the Media section, not at the top of the page.
      expect(await above(page.getByRole('heading', { name: 'Media', level: 2 }), said)).toBe(true);
      expect(await above(said, page.getByRole('heading', { name: 'Voice check', level: 2 }))).toBe(true);

      const media = (await get(`/v1/brands/${brandId}/media`)).media;
      expect(media).toHaveLength(before + 1);
      const opaque = media.find((m: { title: string }) => m.title === 'launch photo.png');
      expect(opaque).toMatchObject({ mime: 'image/jpeg', title: 'launch photo.png' });
      let draft = await get(`/v1/drafts/${ids.plainDraft}`);
      expect(draft.parts[0].media).toMatchObject([{ asset_id: opaque.id, variant: 'wide' }]);
      await page
        .getByRole('region', { name: 'Preview on X' })
        .getByRole('img', { name: 'Attached image, wide crop' })
        .waitFor();
      await page
        .getByRole('list', { name: 'Attached media' })
        .getByText('launch photo.png, wide crop')
        .waitFor();
      // The library lists it by its file name.
      await page.getByRole('radio', { name: 'launch photo.png' }).waitFor();
      await expectAccessible(page);
      await expectFitsPhone(page);

      // A PNG with transparency stays a PNG, and nothing is said about converting it.
      await page.getByLabel('Upload a new file').setInputFiles({
        name: 'logo.png',
        mimeType: 'image/png',
        buffer: await png(true),
      });
      const second = page.getByRole('status').filter({ hasText: 'Uploaded logo.png and attached it' });
      await second.waitFor();
      expect(await second.textContent()).not.toContain('JPEG');
      const logo = (await get(`/v1/brands/${brandId}/media`)).media.find(
        (m: { title: string }) => m.title === 'logo.png',
      );
      expect(logo.mime).toBe('image/png');
      draft = await get(`/v1/drafts/${ids.plainDraft}`);
      expect(draft.parts[0].media.map((m: { asset_id: string }) => m.asset_id)).toEqual([opaque.id, logo.id]);

      await page.goto(`${svc.url}/library`);
      await page.getByRole('list', { name: 'Media library' }).getByText('logo.png').waitFor();
    },
    STEP,
  );

  it(
    'item 5: outcomes beside their controls, work in progress on the button, typed text kept after a failure',
    async () => {
      browser();
      await page.goto(`${svc.url}/drafts/${ids.plainDraft}`);
      await page.getByRole('heading', { name: 'X draft', level: 1 }).waitFor();
      const version = (await get(`/v1/drafts/${ids.plainDraft}`)).version;

      // Too long for X: the server refuses; the error sits under Save and the text stays.
      const tooLong = `${'word '.repeat(60)}end`;
      await page.getByLabel('Post text').fill(tooLong);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      const refused = page.getByRole('alert').filter({ hasText: 'characters' });
      await refused.waitFor();
      expect(await above(page.getByRole('button', { name: 'Save', exact: true }), refused)).toBe(true);
      expect(await above(refused, page.getByRole('heading', { name: 'Media', level: 2 }))).toBe(true);
      expect(await page.getByLabel('Post text').inputValue()).toBe(tooLong);
      expect((await get(`/v1/drafts/${ids.plainDraft}`)).version).toBe(version);

      // A slow save: the button says it is saving, then the outcome shows beside it.
      let release: () => void = () => undefined;
      const held = new Promise<void>((r) => {
        release = r;
      });
      await page.route(`**/v1/drafts/${ids.plainDraft}`, async (route) => {
        if (route.request().method() === 'PATCH') await held;
        await route.continue();
      });
      await page.getByLabel('Post text').fill('Short enough now.');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      const saving = page.getByRole('button', { name: 'Saving…' });
      await saving.waitFor();
      expect(await saving.isDisabled()).toBe(true);
      release();
      await status(page, 'Saved a new version');
      await page.unroute(`**/v1/drafts/${ids.plainDraft}`);
      expect((await get(`/v1/drafts/${ids.plainDraft}`)).parts[0].text).toBe('Short enough now.');

      // The Ideas board: a failed create keeps the typed title, its error sits by the form; a
      // move says so inside the card that moved.
      await page.goto(`${svc.url}/ideas`);
      await page.getByRole('heading', { name: 'Ideas', level: 1 }).waitFor();
      await page.route('**/v1/ideas', (route) =>
        route.request().method() === 'POST' ? route.abort('connectionrefused') : route.continue(),
      );
      await page.getByLabel('Idea title').fill('Standups in writing');
      await page.getByRole('button', { name: 'Create idea' }).click();
      const unreachable = page.getByRole('alert').filter({ hasText: 'could not be reached' });
      await unreachable.waitFor();
      expect(await page.getByLabel('Idea title').inputValue()).toBe('Standups in writing');
      expect(await above(page.getByRole('button', { name: 'Create idea' }), unreachable)).toBe(true);
      expect((await get(`/v1/ideas?brand_id=${brandId}`)).ideas).toHaveLength(0);
      await page.unroute('**/v1/ideas');
      await page.getByRole('button', { name: 'Create idea' }).click();
      await status(page, 'Created the idea “Standups in writing”');
      const idea = (await get(`/v1/ideas?brand_id=${brandId}`)).ideas[0];
      const card = page.locator(`#idea-${idea.id}`);
      await card.getByRole('button', { name: /drafting/i }).click();
      await status(card, 'Moved “Standups in writing” to drafting');
      expect((await get(`/v1/ideas/${idea.id}`)).status).toBe('drafting');
      expect(problems).toEqual([]);
    },
    STEP,
  );

  it(
    'item 5: a slow network shows a spinner, never a blank page',
    async () => {
      const fresh = await browser().page();
      // The app's own script held back: the page still says it is loading.
      let release: () => void = () => undefined;
      const held = new Promise<void>((r) => {
        release = r;
      });
      await fresh.route('**/assets/*.js', async (route) => {
        await held;
        await route.continue();
      });
      // Module scripts hold DOMContentLoaded back, so wait only for the page itself.
      await fresh.goto(`${svc.url}/drafts/${ids.liDraft}`, { waitUntil: 'commit' });
      const boot = fresh.locator('#app .loading');
      await boot.waitFor();
      expect(await boot.textContent()).toBe('Loading svc…');
      // The stylesheet (not held back) turns the line into a spinner.
      await expect
        .poll(() => boot.evaluate((el) => getComputedStyle(el, '::before').animationName), {
          timeout: 20_000,
        })
        .toBe('spin');
      // Then the draft itself answers slowly: the page's heading and a loading line, not nothing.
      let answer: () => void = () => undefined;
      const slow = new Promise<void>((r) => {
        answer = r;
      });
      await fresh.route(`**/v1/drafts/${ids.liDraft}`, async (route) => {
        await slow;
        await route.continue();
      });
      release();
      await fresh.getByText('Loading the draft…').waitFor();
      expect(await fresh.getByRole('heading', { level: 1 }).textContent()).toBe('Draft');
      answer();
      await fresh.getByRole('heading', { name: 'LinkedIn draft', level: 1 }).waitFor();
      // Every section's own loading line goes once its data is in.
      await expect.poll(() => fresh.locator('.loading').count(), { timeout: 20_000 }).toBe(0);
      await fresh.close();
    },
    STEP,
  );

  it(
    'item 11: plurals on the Agents page; rejected drafts say so in the list and the editor',
    async () => {
      browser();
      await page.goto(`${svc.url}/agents`);
      await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
      const agents = (await get('/v1/agents')).agents as { steps: unknown[] }[];
      expect(agents.some((a) => a.steps.length === 1)).toBe(true);
      // The heading renders before the page's own GET /v1/agents answers: wait for the list.
      const stepSummaries = page.locator('summary').filter({ hasText: /^Its / });
      await stepSummaries.nth(agents.length - 1).waitFor();
      const summaries = await stepSummaries.allTextContents();
      expect(summaries.sort()).toEqual(
        agents.map((a) => (a.steps.length === 1 ? 'Its one step' : `Its ${a.steps.length} steps`)).sort(),
      );

      const rejected = await api(svc.url, 'POST', `/v1/approvals/${ids.liApproval}/reject`, {
        body: { reason: 'Too long for a Monday' },
      });
      expect(rejected.status).toBe(200);
      expect((await get(`/v1/drafts/${ids.liDraft}`)).status).toBe('draft');
      await page.goto(`${svc.url}/drafts`);
      const item = page
        .getByRole('list', { name: 'Drafts' })
        .locator('li')
        .filter({
          has: page.locator(`a[href="/drafts/${ids.liDraft}"]`),
        });
      await item.getByText('rejected (Too long for a Monday)').waitFor();
      // Titles are cut between words.
      const title = ((await item.getByRole('link').textContent()) ?? '').replace(/^LinkedIn draft: /, '');
      expect(title.endsWith('…')).toBe(true);
      const words = title.slice(0, -1);
      const text = (await get(`/v1/drafts/${ids.liDraft}`)).parts[0].text as string;
      expect(text.startsWith(words)).toBe(true);
      expect(text[words.length]).toMatch(/[^\p{L}\p{N}]/u);
      // A draft never proposed is not called rejected.
      expect(
        await page
          .getByRole('list', { name: 'Drafts' })
          .locator('li')
          .filter({ has: page.locator(`a[href="/drafts/${ids.plainDraft}"]`) })
          .textContent(),
      ).not.toContain('rejected');

      await item.getByRole('link').click();
      await page.getByRole('heading', { name: 'LinkedIn draft', level: 1 }).waitFor();
      await page.locator('.rejected').filter({ hasText: 'Too long for a Monday' }).waitFor();
      expect(await page.locator('.rejected').textContent()).toMatch(
        /^Rejected on .+: Too long for a Monday\./,
      );
      expect(problems).toEqual([]);
    },
    STEP,
  );
});
