import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchProblems } from '../helpers/app-pages.js';
import { expectAccessibleAtBothWidths } from '../helpers/app-widths.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { makeBrand, makeDraft } from './helpers.js';

/** The brand plans in Tokyo (UTC+9, no daylight saving); the browser sits in New York. */
const BRAND_ZONE = 'Asia/Tokyo';
const BROWSER_ZONE = 'America/New_York';
/** An instant from a Tokyo wall-clock day and hour: Tokyo is always UTC+9. */
const tokyo = (day: string, hour: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + (hour - 9) * 3_600_000).toISOString();
const dayAfter = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

/** The UTC instant a wall clock in `zone` reads `day` `hour`:00 (read back through Intl). */
function instantIn(zone: string, day: string, hour: number): number {
  const guess = Date.parse(`${day}T${String(hour).padStart(2, '0')}:00:00Z`);
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  });
  const p = Object.fromEntries(f.formatToParts(new Date(guess)).map((x) => [x.type, x.value]));
  return guess - (Date.parse(`${p.year}-${p.month}-${p.day}T${p.hour}:00:00Z`) - guess);
}

/**
 * The calendar's week grid in a real Chromium against a real server: seven day columns side by
 * side, posts and best-time slots in the brand's zone (not the browser's), moving a post by drag
 * and drop and by keyboard, a taken hour refused at the post, and a post created by clicking a free
 * hour. Every outcome is read back through the REST API.
 */
describe('the web app: the calendar week and the brand’s time zone', { timeout: 90_000 }, () => {
  let svc: TestService;
  let context: BrowserContext;
  let page: Page;
  let problems: string[] = [];
  let brand: { id: string; channels: Record<string, string> };
  /** The Monday of the sandbox clock's week, in Tokyo, and the post every move starts from. */
  const monday = '2026-01-05';
  const wednesday = '2026-01-07';
  let postId = '';
  let blockerId = '';
  const browser = useBrowser();
  const get = async (path: string) => (await api(svc.url, 'GET', path)).body;
  const cell = (day: string, hour: number) => page.locator(`td[data-day="${day}"][data-hour="${hour}"]`);
  const handleOf = (id: string) => page.locator(`#move-${id}`);
  const openWeek = async () => {
    await page.goto(`${svc.url}/calendar?view=week&date=${wednesday}`);
    await page.getByRole('heading', { name: 'Calendar', level: 1 }).waitFor();
    await page.locator('.week-grid').waitFor();
  };
  const status = (text: string | RegExp) => page.getByRole('status').filter({ hasText: text }).waitFor();
  const centre = async (l: Locator) => {
    const box = await l.boundingBox();
    if (!box) throw new Error('not on screen');
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };

  beforeAll(async () => {
    svc = await startTestService('content');
    brand = await makeBrand(svc);
    const zoned = await api(svc.url, 'PATCH', `/v1/brands/${brand.id}`, { body: { time_zone: BRAND_ZONE } });
    expect(zoned.body.time_zone).toBe(BRAND_ZONE);
    const post = await api(svc.url, 'POST', '/v1/posts', {
      body: {
        channel_id: brand.channels.x,
        text: 'Standups by text: what we kept and what we dropped after a month.',
        scheduled_for: tokyo(wednesday, 10),
      },
    });
    expect(post.status).toBe(201);
    postId = post.body.id;
    const blocker = await api(svc.url, 'POST', '/v1/posts', {
      body: {
        channel_id: brand.channels.x,
        text: 'This hour is taken.',
        scheduled_for: tokyo('2026-01-09', 12),
      },
    });
    blockerId = blocker.body.id;
    context = await browser().browser.newContext({ timezoneId: BROWSER_ZONE });
    page = await context.newPage();
    problems = watchProblems(page);
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await svc?.close();
  });

  it('lays the week out as seven day columns side by side at 1280 px, hours down the side', async () => {
    await openWeek();
    const heads = page.locator('.week-grid thead th[scope="col"]:not(.corner)');
    expect(await heads.count()).toBe(7);
    const boxes = await Promise.all(Array.from({ length: 7 }, (_, i) => heads.nth(i).boundingBox()));
    for (const [i, box] of boxes.entries()) {
      expect(box, `day ${i}`).not.toBeNull();
      if (!box || i === 0) continue;
      const prev = boxes[i - 1];
      if (!prev) continue;
      expect(Math.abs(box.y - prev.y)).toBeLessThan(2); // side by side, not stacked
      expect(box.x).toBeGreaterThanOrEqual(prev.x + prev.width - 1); // left to right, no overlap
      expect(box.x + box.width).toBeLessThanOrEqual(1280);
    }
    // All seven fit in the grid's frame: nothing is cut off behind a sideways scroll at 1280 px.
    const frame = await page.locator('.week-scroll').boundingBox();
    for (const [i, box] of boxes.entries()) {
      expect(
        box && frame && box.x >= frame.x - 1 && box.x + box.width <= frame.x + frame.width + 1,
        `day ${i}`,
      ).toBe(true);
    }
    const sideways = await page.locator('.week-scroll').evaluate((el) => el.scrollWidth - el.clientWidth);
    expect(sideways, 'the week grid does not scroll sideways at 1280 px').toBeLessThanOrEqual(0);
    const hourLabels = page.locator('.week-grid tbody th[scope="row"]');
    expect(await hourLabels.first().textContent()).toBe('07:00');
    const hourBox = await hourLabels.first().boundingBox();
    expect(hourBox && boxes[0] && hourBox.x < boxes[0].x).toBe(true);
    expect(await heads.first().textContent()).toMatch(/Mon.*5/);
    await expectAccessibleAtBothWidths(page);
    expect(problems).toEqual([]);
  });

  it('shows posts and best-time slots in the brand’s zone, and says which zone', async () => {
    await openWeek();
    await page.getByText(`Times in ${BRAND_ZONE}`).waitFor();
    // 10:00 in Tokyo is 20:00 the evening before in the browser's New York.
    const entry = cell(wednesday, 10).locator('.cal-entry');
    await entry.waitFor();
    expect(await entry.textContent()).toMatch(/10:00 X.*Standups by text: what we kept/);
    expect(await cell(dayAfter(wednesday, -1), 20).locator('.cal-entry').count()).toBe(0);

    // Best-time slots come in the server's zone; the grid shades them at the brand's hour.
    const best = await get(`/v1/brands/${brand.id}/best-times`);
    const x = best.platforms.find((p: { platform: string }) => p.platform === 'x');
    const week = [0, 1, 2, 3, 4, 5, 6].map((n) => dayAfter(monday, n));
    const cells = x.slots.flatMap((slot: { weekday: number; hour: number }) =>
      week
        .filter((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === slot.weekday)
        .map((d) => new Date(instantIn(best.timezone, d, slot.hour) + 9 * 3_600_000).toISOString())
        .filter((t) => week.includes(t.slice(0, 10))),
    );
    expect(cells.length).toBeGreaterThan(0);
    for (const t of cells) {
      const shaded = cell(t.slice(0, 10), Number(t.slice(11, 13)));
      expect(await shaded.locator('.best-chip').allTextContents()).toContain('X');
      expect(await shaded.getAttribute('class')).toMatch(/best-\d/);
    }

    // A time picked in the create form is read in the brand's zone too.
    await cell(dayAfter(wednesday, 1), 9).locator('.new-here').click();
    const field = page.getByLabel(`Goes out at (${BRAND_ZONE} time)`);
    expect(await field.inputValue()).toBe(`${dayAfter(wednesday, 1)}T09:00`);
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('moves a post by drag and drop', async () => {
    await openWeek();
    await cell(dayAfter(wednesday, 1), 14).scrollIntoViewIfNeeded();
    const from = await centre(handleOf(postId));
    const to = await centre(cell(dayAfter(wednesday, 1), 14));
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x + 20, from.y + 10, { steps: 3 });
    await page.mouse.move(to.x, to.y, { steps: 8 });
    await page.mouse.up();
    await status(/Moved the X post to Thu.*14:00/);
    expect((await get(`/v1/posts/${postId}`)).scheduled_for).toBe(tokyo(dayAfter(wednesday, 1), 14));
    await cell(dayAfter(wednesday, 1), 14).locator(`#move-${postId}`).waitFor();
    expect(await cell(wednesday, 10).locator('.cal-entry').count()).toBe(0);
  });

  it('moves a post by keyboard, announcing each step', async () => {
    await openWeek();
    await handleOf(postId).focus();
    await page.keyboard.press('Enter');
    await status(/Picked up the X post at Thu.*14:00/);
    await page.keyboard.press('ArrowDown');
    await status(/Thu.*15:00/);
    await page.keyboard.press('ArrowLeft');
    await status(/Wed.*15:00/);
    // Escape puts it back: nothing is sent.
    await page.keyboard.press('Escape');
    await status('Move cancelled');
    expect((await get(`/v1/posts/${postId}`)).scheduled_for).toBe(tokyo(dayAfter(wednesday, 1), 14));

    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await status(/Moved the X post to Fri.*15:00/);
    expect((await get(`/v1/posts/${postId}`)).scheduled_for).toBe(tokyo(dayAfter(wednesday, 2), 15));
    // The handle keeps the focus in its new hour, so the next move can follow.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(`move-${postId}`);
    await cell(dayAfter(wednesday, 2), 15).locator(`#move-${postId}`).waitFor();
  });

  it('refuses a taken hour at the post, which stays where it was', async () => {
    await openWeek();
    // Friday 12:00 holds the other X post: three hours up from 15:00.
    await handleOf(postId).focus();
    await page.keyboard.press('Enter');
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    const refusal = cell(dayAfter(wednesday, 2), 15).locator('.cal-entry [role="alert"]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/already|taken|slot/i);
    expect((await get(`/v1/posts/${postId}`)).scheduled_for).toBe(tokyo(dayAfter(wednesday, 2), 15));
    expect((await get(`/v1/posts/${blockerId}`)).scheduled_for).toBe(tokyo(dayAfter(wednesday, 2), 12));
  });

  it('creates a post by clicking a free hour: new text scheduled, or a draft proposed', async () => {
    await openWeek();
    const day = dayAfter(wednesday, 1);
    await cell(day, 18).locator('.new-here').click();
    const dialog = page.getByRole('dialog', { name: 'New post' });
    await dialog.waitFor();
    await expectAccessibleAtBothWidths(page);
    await dialog.getByLabel('Channel').selectOption(brand.channels.linkedin as string);
    await dialog.getByLabel('Post text').fill('Three things we learnt from a month of written standups.');
    await dialog.getByRole('button', { name: 'Schedule' }).click();
    await status('Scheduled a LinkedIn post.');
    const scheduled = (await get(`/v1/posts?brand_id=${brand.id}&status=scheduled`)).posts.find(
      (p: { channel_id: string }) => p.channel_id === brand.channels.linkedin,
    );
    expect(scheduled.scheduled_for).toBe(tokyo(day, 18));
    expect(scheduled.parts[0].text).toBe('Three things we learnt from a month of written standups.');
    expect(await cell(day, 18).locator('.cal-entry').textContent()).toMatch(/18:00 LinkedIn.*Three things/);

    // A draft, proposed for approval instead: nothing is scheduled until a person approves it.
    const draftId = await makeDraft(svc, brand.id, 'x', 'Why we stopped daily video calls.');
    await openWeek();
    await cell(day, 19).locator('.new-here').click();
    await dialog.waitFor();
    await dialog.getByLabel('Channel').selectOption(brand.channels.x as string);
    await dialog.getByLabel('Use a draft').check();
    await dialog.getByLabel('Draft', { exact: true }).selectOption(draftId);
    await dialog.getByRole('button', { name: 'Propose for approval' }).click();
    await status(/Proposed an? X post/);
    const [approval] = (await get(`/v1/approvals?brand_id=${brand.id}&status=pending`)).approvals;
    expect(approval.draft.id).toBe(draftId);
    expect(approval.slot).toBe(tokyo(day, 19));
    expect(problems).toEqual([]);
  });

  it('sets the brand’s zone in Settings, and a new brand starts in the browser’s', async () => {
    await page.goto(`${svc.url}/settings#brand`);
    const field = page.getByLabel(/^Time zone of /);
    expect(await field.inputValue()).toBe(BRAND_ZONE);
    await field.selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Save time zone' }).click();
    await status(/times are shown in Europe\/Berlin/);
    expect((await get(`/v1/brands/${brand.id}`)).time_zone).toBe('Europe/Berlin');
    await openWeek();
    await page.getByText('Times in Europe/Berlin').waitFor();
    // 15:00 in Tokyo is 07:00 in Berlin: the post moved on screen, not in time.
    await cell(dayAfter(wednesday, 2), 7).locator(`#move-${postId}`).waitFor();
    expect((await get(`/v1/posts/${postId}`)).scheduled_for).toBe(tokyo(dayAfter(wednesday, 2), 15));

    await page.goto(`${svc.url}/brands/new`);
    expect(await page.getByLabel(/^Time zone/).inputValue()).toBe(BROWSER_ZONE);
    await page.getByLabel('Brand name').fill('Zoned');
    await page.getByRole('button', { name: 'Create brand' }).click();
    await page.getByRole('heading', { name: 'Brand Memory', level: 1 }).waitFor();
    const made = (await get('/v1/brands?limit=100')).brands.find((b: { name: string }) => b.name === 'Zoned');
    expect(made.time_zone).toBe(BROWSER_ZONE);
    expect(problems).toEqual([]);
  });
});
