import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLATFORM_LIMITS } from '../../src/content/domain.js';
import { expectAccessible, expectFitsPhone, screenshot, watchProblems } from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

const HOUR = 3_600_000;
/** Each step drives several pages (axe, screenshots, 390 px) on a shared 2-core machine. */
const STEP = 90_000;

/**
 * The planning pages (Ideas, Media, Drafts, Calendar) driven by a real Chromium against a real
 * server, through the flow: create an idea, suggest ideas, draft, attach media, propose,
 * approve, advance the sandbox clock, see the post published. Every click goes through the app
 * and the REST API; every effect is checked through the API.
 */
describe('the web app: planning pages in a real browser', () => {
  let svc: TestService;
  let page: Page;
  let problems: string[] = [];
  let brandId = '';
  const browser = useBrowser();
  const ids = {} as Record<'idea' | 'draft' | 'asset' | 'approval' | 'post', string>;
  const status = (text: string) => page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const get = async (path: string) => {
    const res = await api(svc.url, 'GET', path);
    expect(res.status, path).toBe(200);
    return res.body;
  };
  /** A picture with something to crop around: a sun in one corner, hills along the bottom. */
  const image = (width: number, height: number, sky: string) =>
    sharp(
      Buffer.from(
        `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
          <rect width="100%" height="100%" fill="${sky}"/>
          <circle cx="${width * 0.25}" cy="${height * 0.3}" r="${Math.min(width, height) * 0.12}" fill="#f6c343"/>
          <ellipse cx="${width * 0.7}" cy="${height}" rx="${width * 0.6}" ry="${height * 0.35}" fill="#2f855a"/>
        </svg>`,
      ),
    )
      .png()
      .toBuffer();
  /** Full-page screenshots from the top, so the sticky header sits where it belongs. */
  const shoot = async (name: string) => {
    await page.evaluate(() => scrollTo(0, 0));
    await screenshot(page, name);
  };

  beforeAll(async () => {
    svc = await startTestService('content');
    await (svc.handle as { ready?: Promise<void> }).ready;
  });
  afterAll(() => svc?.close());

  it(
    'says to create a brand first when there is none',
    async () => {
      page = await browser().page();
      problems = watchProblems(page);
      // A step that cannot happen fails with its locator, well within the test's own timeout.
      page.setDefaultTimeout(20_000);
      await page.setViewportSize({ width: 1280, height: 900 });
      for (const [path, title] of [
        ['/ideas', 'Ideas'],
        ['/calendar', 'Calendar'],
        ['/drafts', 'Drafts'],
        ['/library', 'Media'],
      ] as const) {
        await page.goto(`${svc.url}${path}`);
        await page.getByRole('heading', { name: title, level: 1 }).waitFor();
        await page.getByRole('heading', { name: 'No brand yet' }).waitFor();
      }

      const brand = await api(svc.url, 'POST', '/v1/brands', { body: { name: 'Fieldnote' } });
      brandId = brand.body.id;
      for (const platform of ['x', 'linkedin'])
        await api(svc.url, 'POST', `/v1/brands/${brandId}/channels/connect`, { body: { platform } });
      for (const title of ['Async standups are trending', 'How do teams write decision logs?'])
        expect(
          (
            await api(svc.url, 'POST', `/v1/brands/${brandId}/signals`, {
              body: { kind: title.endsWith('?') ? 'question' : 'trend', title },
            })
          ).status,
        ).toBe(201);
    },
    STEP,
  );

  it(
    'Ideas: creates an idea, moves it along allowed transitions only, suggests ideas citing signals, drafts it',
    async () => {
      browser();
      await page.goto(`${svc.url}/ideas`);
      await page.getByRole('heading', { name: 'No ideas yet' }).waitFor();
      // The columns, in pipeline order.
      const columns = await page.locator('.column h2').allTextContents();
      expect(columns.map((c) => c.replace(/\s*\(\d+\)$/, ''))).toEqual([
        'Idea',
        'Drafting',
        'Approved',
        'Scheduled',
        'Live',
      ]);

      await page.getByLabel('Idea title').fill('Write the standup down');
      await page.getByLabel('Angle (optional)').fill('A month of written standups');
      await page.getByRole('button', { name: 'Create idea' }).click();
      await status('Created the idea');
      const listed = (await get(`/v1/ideas?brand_id=${brandId}`)).ideas;
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({
        title: 'Write the standup down',
        angle: 'A month of written standups',
        status: 'idea',
      });
      ids.idea = listed[0].id;
      const card = page.locator(`#idea-${ids.idea}`);
      await card.waitFor();

      // Only the allowed moves are offered: from `idea`, forward to drafting.
      expect(await card.getByRole('button', { name: /^Move/ }).allTextContents()).toEqual([
        'Move to drafting',
      ]);
      await card.getByRole('button', { name: 'Move to drafting' }).click();
      await status('to drafting');
      expect((await get(`/v1/ideas/${ids.idea}`)).status).toBe('drafting');
      expect(await page.getByRole('list', { name: 'Drafting ideas' }).textContent()).toContain(
        'Write the standup down',
      );
      expect(await card.getByRole('button', { name: /^Move/ }).allTextContents()).toEqual([
        'Move back to idea',
        'Move to approved',
      ]);
      // By keyboard: focus the button and press Enter.
      await card.getByRole('button', { name: 'Move back to idea' }).focus();
      await page.keyboard.press('Enter');
      await status('to idea');
      expect((await get(`/v1/ideas/${ids.idea}`)).status).toBe('idea');

      // A signal the person noticed, noted on the page; suggestions can then cite it.
      await page.getByRole('button', { name: 'Note a signal' }).click();
      const form = page.getByRole('form', { name: 'Note a signal' });
      await form.getByLabel('Kind of signal').selectOption('question');
      await form.getByLabel('What you noticed').fill('Do written standups work across time zones?');
      await form.getByRole('button', { name: 'Save signal' }).click();
      await status('Noted the signal');
      const signals = (await get(`/v1/brands/${brandId}/signals`)).signals;
      expect(signals).toContainEqual(
        expect.objectContaining({ kind: 'question', title: 'Do written standups work across time zones?' }),
      );

      await page.getByRole('button', { name: 'Suggest ideas' }).click();
      await status('Suggested ideas');
      const suggested = page.getByRole('region', { name: 'Suggested from your signals' });
      const all = (await get(`/v1/ideas?brand_id=${brandId}`)).ideas;
      const fromSignals = all.filter((i: { signal: unknown }) => i.signal);
      expect(fromSignals.length).toBeGreaterThan(0);
      for (const i of fromSignals) {
        expect(await suggested.textContent()).toContain(i.title);
        expect(await suggested.textContent()).toContain(`signal “${i.signal.title}”`);
        expect(await page.locator(`#idea-${i.id}`).textContent()).toContain(`signal “${i.signal.title}”`);
      }

      await card.getByRole('button', { name: 'Draft', exact: true }).click();
      // Only the brand's connected platforms are offered (it has X and LinkedIn, not Instagram or Threads).
      const offered = await card.locator('.draft-form label.check').allTextContents();
      expect(offered.map((t) => t.trim())).toEqual(['X', 'LinkedIn']);
      const create = card.getByRole('button', { name: 'Create drafts' });
      expect(await create.isDisabled()).toBe(true);
      await card.getByRole('checkbox', { name: 'X' }).check();
      await create.click();
      await status('Drafted');
      const drafts = (await get(`/v1/drafts?idea_id=${ids.idea}`)).drafts;
      expect(drafts.map((d: { platform: string }) => d.platform)).toEqual(['x']);
      ids.draft = drafts[0].id;
      expect(await card.getByRole('link', { name: 'X draft' }).getAttribute('href')).toBe(
        `/drafts/${ids.draft}`,
      );
      expect((await get(`/v1/ideas/${ids.idea}`)).status).toBe('drafting');

      await shoot('ideas-desktop');
      await expectAccessible(page);
      await expectFitsPhone(page, 'ideas-390');
    },
    STEP,
  );

  it(
    'Media: uploads by file button and by drag and drop, refuses a private URL in words, sets alt, tags and focal point, previews each crop',
    async () => {
      browser();
      await page.goto(`${svc.url}/library`);
      await page.getByRole('heading', { name: 'No media yet' }).waitFor();

      // The server refuses private addresses; the app says so in words with the request id, and
      // nothing is added.
      await page.getByLabel('Import from a public URL').fill('http://127.0.0.1:9/secret.png');
      await page.getByRole('button', { name: 'Import' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/127\.0\.0\.1.*Request id: req_/);
      expect((await get(`/v1/brands/${brandId}/media`)).media).toHaveLength(0);

      await page.getByLabel('Choose files to upload').setInputFiles({
        name: 'team.png',
        mimeType: 'image/png',
        buffer: await image(1200, 800, '#2b6cb0'),
      });
      await status('Uploaded team.png');
      expect((await get(`/v1/brands/${brandId}/media`)).media).toHaveLength(1);

      const dropped = (await image(600, 900, '#c05621')).toString('base64');
      await page.evaluate((b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], 'poster.png', { type: 'image/png' }));
        const zone = document.querySelector('.dropzone') as HTMLElement;
        zone.dispatchEvent(
          new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }),
        );
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
      }, dropped);
      await status('Uploaded poster.png');
      const media = (await get(`/v1/brands/${brandId}/media`)).media;
      expect(media).toHaveLength(2);

      ids.asset = media.find((m: { width: number }) => m.width === 1200).id;
      await page.locator(`a[href="/library?asset=${ids.asset}"]`).click();
      // Named by its file name until it has alt text.
      const detail = page.getByRole('region', { name: 'team.png' });
      await detail.waitFor();
      await detail.getByLabel('Alt text').fill('The team at the whiteboard');
      await detail.getByLabel('Tags (comma-separated)').fill('team, office');
      // A click on the image sets the focal point: a quarter from the left, three quarters down.
      const img = detail.locator('.focal-img');
      await page.waitForFunction(
        () => (document.querySelector('.focal-img') as HTMLImageElement)?.naturalWidth > 0,
      );
      const box = await img.boundingBox();
      if (!box) throw new Error('the image has no box');
      await img.click({ position: { x: box.width * 0.25, y: box.height * 0.75 } });
      expect(Number(await detail.getByLabel('From the left (%)').inputValue())).toBeCloseTo(25, -1);
      expect(Number(await detail.getByLabel('From the top (%)').inputValue())).toBeCloseTo(75, -1);
      await detail.getByRole('button', { name: 'Save changes' }).click();
      await status('Saved the alt text');
      const asset = await get(`/v1/media/${ids.asset}`);
      expect(asset).toMatchObject({ alt: 'The team at the whiteboard', tags: ['team', 'office'] });
      expect(asset.focal_point.x).toBeCloseTo(0.25, 1);
      expect(asset.focal_point.y).toBeCloseTo(0.75, 1);

      // The keyboard way: the number inputs.
      const heading = page.getByRole('region', { name: 'team.png' });
      await heading.getByLabel('From the left (%)').fill('60');
      await heading.getByLabel('From the top (%)').fill('40');
      await heading.getByLabel('From the top (%)').press('Enter');
      await expect
        .poll(async () => (await get(`/v1/media/${ids.asset}`)).focal_point, { timeout: 20_000 })
        .toEqual({ x: 0.6, y: 0.4 });

      // Each platform's crop, loaded from its public URL.
      const fit = await get(`/v1/media/${ids.asset}/fit`);
      const crops = heading.getByRole('list', { name: 'Crops by platform' });
      for (const p of fit.platforms) {
        const name = { x: 'X', linkedin: 'LinkedIn', instagram: 'Instagram', threads: 'Threads' }[
          p.platform as string
        ];
        await crops.getByRole('img', { name: `${name} crop (${p.preferred_variant})` }).waitFor();
      }
      await page.waitForFunction(() =>
        [...document.querySelectorAll<HTMLImageElement>('.crop-img')].every(
          (i) => i.complete && i.naturalWidth > 0,
        ),
      );

      await shoot('media-desktop');
      await expectAccessible(page);
      await expectFitsPhone(page, 'media-390');

      // Delete the other file: gone from the library, over the API too.
      const other = media.find((m: { id: string }) => m.id !== ids.asset).id;
      await page.locator(`a[href="/library?asset=${other}"]`).click();
      await page.getByRole('region', { name: 'poster.png' }).getByRole('button', { name: 'Delete' }).click();
      await status('Deleted “poster.png”');
      expect((await get(`/v1/brands/${brandId}/media`)).media.map((m: { id: string }) => m.id)).toEqual([
        ids.asset,
      ]);
      expect((await api(svc.url, 'GET', `/v1/media/${other}`)).status).toBe(404);
      expect(new URL(page.url()).search).toBe('');
    },
    STEP,
  );

  it(
    'Drafts: edits with a live length count, restores a version, attaches media with its crop, runs the voice check, proposes',
    async () => {
      browser();
      await page.goto(`${svc.url}/drafts`);
      await page.getByRole('heading', { name: 'Drafts', level: 1 }).waitFor();
      await expectAccessible(page);
      await page.locator(`a[href="/drafts/${ids.draft}"]`).click();
      await page.getByRole('heading', { name: 'X draft', level: 1 }).waitFor();
      const first = await get(`/v1/drafts/${ids.draft}`);
      const original = first.parts[0].text as string;

      const box = page.getByLabel('Post text');
      const long = 'a'.repeat(PLATFORM_LIMITS.x + 5);
      await box.fill(long);
      await page
        .getByText(`${PLATFORM_LIMITS.x + 5} / ${PLATFORM_LIMITS.x} characters — 5 over the limit`)
        .waitFor();
      const text = 'We wrote our standups down for a month. Here is what changed.';
      await box.fill(text);
      await page.getByText(`Length: ${[...text].length} / ${PLATFORM_LIMITS.x} characters`).waitFor();
      await page.getByLabel('What changed (optional)').fill('Shorter hook');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await status('Saved a new version');
      let draft = await get(`/v1/drafts/${ids.draft}`);
      expect(draft.version).toBe(first.version + 1);
      expect(draft.parts[0].text).toBe(text);

      await page.getByText(`Version ${first.version}:`).click();
      await page.getByRole('button', { name: `Restore version ${first.version}` }).click();
      await status(`Restored the text of version ${first.version}`);
      draft = await get(`/v1/drafts/${ids.draft}`);
      expect(draft.version).toBe(first.version + 2);
      expect(draft.parts[0].text).toBe(original);
      expect(draft.versions.at(-1).note).toBe(`Restored version ${first.version}`);
      expect(await page.getByLabel('Post text').inputValue()).toBe(original);

      await page.getByRole('radio', { name: 'team.png' }).check();
      const fit = await get(`/v1/media/${ids.asset}/fit`);
      const want = fit.platforms.find((p: { platform: string }) => p.platform === 'x');
      await page.getByRole('img', { name: `X crop preview (${want.preferred_variant})` }).waitFor();
      await page.getByRole('button', { name: 'Attach' }).click();
      await status('Attached the media');
      draft = await get(`/v1/drafts/${ids.draft}`);
      expect(draft.parts[0].media).toEqual([
        expect.objectContaining({ asset_id: ids.asset, variant: want.preferred_variant }),
      ]);
      await page.getByRole('img', { name: `Attached image, ${want.preferred_variant} crop` }).waitFor();

      await page.getByRole('button', { name: 'Run voice check' }).click();
      await status('Ran the voice check');
      const voice = await page.locator('.voice-result').textContent();
      expect(voice).toMatch(/^(Passed|Failed)/);
      expect(voice).toMatch(/checks? passed|fail|warn/);

      await page.getByLabel('Reason (shown to the approver)').fill('Our written-standup story');
      await page.getByRole('button', { name: 'Propose', exact: true }).click();
      await status('Proposed the post');
      const queue = (await get('/v1/approvals?status=pending')).approvals;
      const mine = queue.find((a: { draft: { id: string } }) => a.draft.id === ids.draft);
      expect(mine).toMatchObject({ status: 'pending', reason: 'Our written-standup story' });
      ids.approval = mine.id;

      await shoot('draft-editor-desktop');
      await expectAccessible(page);
      await expectFitsPhone(page, 'draft-editor-390');
    },
    STEP,
  );

  it(
    'the flow: approve on the Approvals page, advance the sandbox clock, the post is published',
    async () => {
      browser();
      await page.getByRole('link', { name: 'Open Approvals' }).click();
      await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
      await page
        .locator(`#approval-${ids.approval}`)
        .getByRole('button', { name: 'Approve', exact: true })
        .click();
      await status('Approved the post');
      const approved = await get(`/v1/approvals/${ids.approval}`);
      expect(approved.status).toBe('approved');
      ids.post = approved.post_id;
      expect((await get(`/v1/posts/${ids.post}`)).status).toBe('scheduled');

      const minutes = Math.ceil((Date.parse(approved.slot) + HOUR - svc.clock.now().getTime()) / 60_000);
      const advanced = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { minutes } });
      expect(advanced.status).toBe(200);
      expect(advanced.body.published).toContain(ids.post);
      const post = await get(`/v1/posts/${ids.post}`);
      expect(post).toMatchObject({ status: 'published', draft_id: ids.draft, idea_id: ids.idea });
      expect((await get(`/v1/ideas/${ids.idea}`)).status).toBe('live');
    },
    STEP,
  );

  it(
    'Drafts: writes a new draft by hand; an unknown draft is an error in words, not a blank page',
    async () => {
      browser();
      await page.goto(`${svc.url}/drafts`);
      await page.getByText('Write a new draft').click();
      await page.getByLabel('Platform').selectOption('linkedin');
      await page.getByLabel('Text', { exact: true }).fill('A note on written standups, for LinkedIn.');
      await page.getByRole('button', { name: 'Create draft' }).click();
      await page.getByRole('heading', { name: 'LinkedIn draft', level: 1 }).waitFor();
      const id = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');
      expect(await get(`/v1/drafts/${id}`)).toMatchObject({
        brand_id: brandId,
        platform: 'linkedin',
        parts: [{ text: 'A note on written standups, for LinkedIn.' }],
      });
      expect(await page.getByText('LinkedIn allows 3000 characters per post.').count()).toBe(1);

      await page.goto(`${svc.url}/drafts/draft_nope`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(/draft_nope.*Request id: req_/);
    },
    STEP,
  );

  it(
    'Calendar: shows the post by week and by month with best-time slots shaded, and opens it',
    async () => {
      browser();
      const post = await get(`/v1/posts/${ids.post}`);
      await page.goto(`${svc.url}/calendar`);
      await page.getByRole('heading', { name: 'Calendar', level: 1 }).waitFor();
      const link = page.locator(`a[href="/posts/${ids.post}"]`);
      await link.waitFor();
      expect(await link.textContent()).toMatch(/^\d\d:\d\d X @?\S+ · published\S/);
      // Best-time slots are shaded and say for which platforms.
      const best = await get(`/v1/brands/${brandId}/best-times`);
      expect(best.platforms.some((p: { slots: unknown[] }) => p.slots.length > 0)).toBe(true);
      expect(await page.locator('.week-grid td[class*="best-"]').count()).toBeGreaterThan(0);
      expect(await page.locator('.week-grid').textContent()).toContain('Best time for X');
      expect(await page.getByRole('button', { name: 'Week', exact: true }).getAttribute('aria-pressed')).toBe(
        'true',
      );

      await shoot('calendar-desktop');
      await expectAccessible(page);
      await expectFitsPhone(page, 'calendar-390');

      const heading = page.locator('.cal-heading');
      const thisWeek = await heading.textContent();
      await page.getByRole('button', { name: 'Next week' }).click();
      await page.waitForFunction((h) => document.querySelector('.cal-heading')?.textContent !== h, thisWeek);
      await link.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Today' }).click();
      await link.waitFor();

      await page.getByRole('button', { name: 'Month', exact: true }).click();
      await page.locator('table.month').waitFor();
      expect(page.url()).toContain('view=month');
      await link.waitFor();
      expect(await link.textContent()).toMatch(/^\d\d:\d\d X @?\S+ · published$/);
      expect(await page.locator('.month td[class*="best-"]').count()).toBeGreaterThan(0);
      await shoot('calendar-month-desktop');
      await expectAccessible(page);
      await expectFitsPhone(page);
      await page.getByRole('button', { name: 'Previous month' }).click();
      await link.waitFor({ state: 'detached' });
      await page.goBack();
      // Two hours on, the sandbox has taken its first snapshots of the post.
      expect(
        (await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { minutes: 120 } })).status,
      ).toBe(200);
      await link.click();
      await page.waitForURL(`${svc.url}/posts/${ids.post}`);
      expect(post.status).toBe('published');
      // The end of the flow: the post with its growth curve against the brand's baseline, and the
      // same values in a table.
      const opened = await get(`/v1/posts/${ids.post}`);
      expect(opened.growth.length).toBeGreaterThan(0);
      await page.locator('.growth-chart canvas').waitFor();
      const rows = page.getByRole('table', { name: /Snapshots/ }).locator('tbody tr');
      await rows.first().waitFor();
      expect(await rows.first().locator('th').textContent()).toBe(String(opened.growth[0].age_h));
    },
    STEP,
  );

  it(
    'raised no script or console errors on any page',
    () => {
      browser();
      expect(problems).toEqual([]);
    },
    STEP,
  );
});
