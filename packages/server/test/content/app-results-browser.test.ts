import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { sequentialIds } from '../../src/platform/ids.js';
import { expectAccessible, expectFitsPhone, screenshot, watchProblems } from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/**
 * Posts and results, Insights, Brand Memory and Campaigns driven by a real Chromium against a
 * real server with the demo brand (60 published posts with snapshots and replies, a digest, a
 * campaign), plus one post published through the REST API and grown by the sandbox clock.
 * Every effect is checked through the REST API.
 */
// Generous per-test time: the demo seed and the digest agent are slow on a loaded CI machine.
describe('the web app: posts, insights, memory and campaigns in a real browser', { timeout: 60_000 }, () => {
  let svc: TestService;
  let page: Page;
  let problems: string[] = [];
  let brandId: string;
  let postId: string;
  const text = 'Fresh post: the one question every status update answers.';
  const browser = useBrowser();
  const get = async (path: string) => (await api(svc.url, 'GET', path)).body;
  const notice = (words: string) => page.getByRole('status').filter({ hasText: words }).waitFor();
  const open = async (path: string, heading: string | RegExp) => {
    await page.goto(`${svc.url}${path}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  };

  beforeAll(async () => {
    // Sequential ids: the simulated metrics follow from post ids, so the demo's results (and the
    // memory proposals drawn from them) are the same on every run.
    svc = await startTestService('content', { config: { seed: 'demo' }, ids: sequentialIds() });
    await (svc.handle as { ready?: Promise<void> }).ready;
    const brand = (await get('/v1/brands')).brands[0];
    brandId = brand.id;
    // Memory proposals from the demo's posts alone (before ours), so they are the same every run.
    const run = await api(svc.url, 'POST', '/v1/agents/voice_refresh/runs', {
      body: { inputs: { brandId } },
    });
    expect(run.body.status).toBe('succeeded');
    expect(run.body.output.proposals).toHaveLength(3);
    const x = brand.channels.find((c: { platform: string }) => c.platform === 'x');
    // Published now, then the sandbox clock runs three days: snapshots are taken as it passes
    // each age, and the post settles with its verdict against the brand's baseline.
    const post = await api(svc.url, 'POST', '/v1/posts', { body: { channel_id: x.id, text } });
    expect(post.status).toBe(201);
    postId = post.body.id;
    expect((await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 73 } })).status).toBe(
      200,
    );
    page = await browser().page();
    problems = watchProblems(page);
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 120_000);
  afterAll(() => svc?.close());

  it('lists the posts with their verdicts, and filters them by status', async () => {
    await open('/posts', 'Posts');
    const link = page.getByRole('link', { name: text });
    await link.waitFor();
    const listed = (await get(`/v1/posts?brand_id=${brandId}&limit=50`)).posts;
    const rows = page.locator('.post-row');
    expect(await rows.count()).toBe(listed.length);
    const names = { outperforming: 'Outperforming', on_par: 'On par', underperforming: 'Underperforming' };
    const first = listed[0];
    expect(first.id).toBe(postId);
    expect(await rows.first().textContent()).toContain(names[first.verdict as keyof typeof names]);
    expect(await rows.first().textContent()).toContain('X @fieldnote');
    for (const [i, p] of listed.slice(0, 10).entries())
      expect(await rows.nth(i).locator('.verdict').getAttribute('class')).toBe(
        `verdict verdict-${p.verdict}`,
      );
    expect(await page.getByRole('link', { name: 'Posts' }).getAttribute('aria-current')).toBe('page');

    await page.getByLabel('Status').selectOption('scheduled');
    await page.getByRole('heading', { name: 'No posts here yet' }).waitFor();
    expect(new URL(page.url()).search).toBe('?status=scheduled');
    expect((await get(`/v1/posts?brand_id=${brandId}&status=scheduled`)).posts).toEqual([]);
    await page.getByLabel('Status').selectOption('');
    await link.waitFor();
    await screenshot(page, 'posts-desktop', { fullPage: false });
    await expectFitsPhone(page, 'posts-390');
    await expectAccessible(page);
  });

  it('opens a post: its growth curve drawn against the baseline, the same values in a table, metrics and replies', async () => {
    await page.getByRole('link', { name: text }).click();
    await page.getByRole('heading', { name: /^Post: Fresh post/, level: 1 }).waitFor();
    const post = await get(`/v1/posts/${postId}`);
    expect(post.growth.length).toBe(7);
    expect(post.baseline.length).toBeGreaterThan(0);

    // uPlot drew both curves on its canvas: pixels in the post's colour and in the baseline's.
    await page.locator('.growth-chart canvas').waitFor();
    const drawn = await page.waitForFunction(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('.growth-chart canvas');
      const ctx = canvas?.getContext('2d');
      if (!canvas || !ctx || canvas.width === 0) return null;
      const px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      let postPx = 0;
      let basePx = 0;
      for (let i = 0; i < px.length; i += 4) {
        const [r, g, b] = [px[i] as number, px[i + 1] as number, px[i + 2] as number];
        if (Math.abs(r - 0x0b) < 12 && Math.abs(g - 0x5c) < 12 && Math.abs(b - 0xad) < 12) postPx++;
        if (Math.abs(r - 0x8a) < 12 && Math.abs(g - 0x5a) < 12 && Math.abs(b - 0x00) < 12) basePx++;
      }
      return postPx > 50 && basePx > 50 ? { postPx, basePx } : null;
    });
    expect(await drawn.jsonValue()).toBeTruthy();
    // The legend names both curves and never shows uPlot's "--" placeholder for a missing value.
    const legend = await page.locator('.growth-chart .u-legend').textContent();
    expect(legend).toContain('This post');
    expect(legend).toContain('Brand baseline');
    expect(legend).not.toContain('--');

    // The accessible fallback: one row per age, with the post's and the baseline's values.
    const table = page.getByRole('table', { name: /Snapshots/ });
    const ages = [...new Set([...post.growth, ...post.baseline].map((s: { age_h: number }) => s.age_h))];
    expect(await table.locator('tbody tr').count()).toBe(ages.length);
    const at72 = table
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: '72', exact: true }) });
    const last = post.growth.at(-1);
    expect(await at72.getByRole('cell').first().textContent()).toBe(last.engagements.toLocaleString('en-US'));

    const body = await page.locator('main').textContent();
    expect(body).toContain(`Latest snapshot, 72 hours after publishing`);
    expect(await page.getByRole('link', { name: 'Open the post on X @fieldnote' }).getAttribute('href')).toBe(
      post.permalink,
    );
    const verdicts = { outperforming: 'Outperforming', on_par: 'On par', underperforming: 'Underperforming' };
    expect(post.outcome.settled).toBe(true);
    expect(await page.locator('.facts .verdict').textContent()).toBe(
      verdicts[post.verdict as keyof typeof verdicts],
    );
    const replies = (await get(`/v1/posts/${postId}/replies?limit=100`)).replies;
    expect(replies.length).toBeGreaterThan(0);
    await page.locator('.replies > li').first().waitFor();
    expect(await page.locator('.replies > li').count()).toBe(replies.length);
    expect(await page.locator('.replies').textContent()).toContain(replies[0].text);

    await screenshot(page, 'post-desktop');
    await expectFitsPhone(page, 'post-390');
    await expectAccessible(page);
  });

  it('shows the digest with each citation a link to its post, reply themes largest first, and the overview', async () => {
    await open('/insights', 'Insights');
    const digest = await get(`/v1/brands/${brandId}/digest`);
    await page.getByText(digest.headline).waitFor();
    const cited: string[] = [];
    for (const list of ['wins', 'misses', 'patterns', 'recommendations'] as const) {
      const section = page.locator(`.digest-${list}`);
      for (const item of digest[list]) {
        expect(await section.textContent()).toContain(item.text);
        // Each citation is named by the first words of the post it cites, never by its id.
        for (const id of item.post_ids) {
          const words = (await get(`/v1/posts/${id}`)).parts[0].text.split('\n')[0].slice(0, 24);
          await section.locator(`a[href="/posts/${id}"]`).filter({ hasText: words }).first().waitFor();
          cited.push(id);
        }
      }
    }
    expect(cited.length).toBeGreaterThan(0);

    const themes = (await get(`/v1/brands/${brandId}/conversation`)).themes;
    expect(themes.length).toBeGreaterThan(1);
    // The themes have a GET of their own, which may answer after the digest's: wait for them all.
    await page
      .locator('.theme h3')
      .nth(themes.length - 1)
      .waitFor();
    const shown = await page.locator('.theme h3').allTextContents();
    expect(shown.length).toBe(themes.length);
    const counts = shown.map((t) => Number((/([\d,]+) replies/.exec(t)?.[1] ?? '').replace(/,/g, '')));
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(counts).toEqual(themes.map((t: { count: number }) => t.count));
    expect(shown[0]).toContain(themes[0].label);

    const overview = await get(`/v1/insights/overview?brand_id=${brandId}`);
    const stat = (name: string) =>
      page
        .locator('.figures > div')
        .filter({ has: page.getByText(name, { exact: true }) })
        .locator('dd');
    expect(await stat('Posts published').textContent()).toBe(String(overview.posts_published));
    expect(await page.locator('main').textContent()).toContain(overview.top_post.excerpt);

    await screenshot(page, 'insights-desktop');
    await expectFitsPhone(page, 'insights-390');
    await expectAccessible(page);

    // "Make a new digest" runs the digest agent; the page shows the new one.
    await page.getByRole('button', { name: 'Make a new digest' }).click();
    await notice('A new digest is ready.');
    const made = await get(`/v1/brands/${brandId}/digest`);
    expect(made.id).not.toBe(digest.id);
    await page.getByText(made.headline).waitFor();

    // A citation of the new digest opens the post it cites.
    const [citedNow] = ['wins', 'misses', 'patterns', 'recommendations'].flatMap((l) =>
      made[l].flatMap((item: { post_ids: string[] }) => item.post_ids),
    );
    await page.locator(`.digest-list a[href="/posts/${citedNow}"]`).first().click();
    await page.getByRole('heading', { name: /^Post: /, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/posts/${citedNow}`);
  });

  it('applies a memory proposal: its rule enters Brand Memory with its evidence posts', async () => {
    await open('/memory', 'Brand Memory');
    const pending = (await get(`/v1/memory-proposals?brand_id=${brandId}&status=pending`)).memory_proposals;
    expect(pending.length).toBeGreaterThanOrEqual(2);
    const [first] = pending;
    const card = page.locator(`#proposal-${first.id}`);
    await card.waitFor();
    expect(await card.textContent()).toContain(first.why);
    expect(await card.textContent()).toContain(`${first.lift.toFixed(2)}×`);
    for (const e of first.evidence)
      expect(await card.locator(`a[href="/posts/${e.post_id}"]`).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'memory-desktop', { fullPage: false });

    await card.getByRole('button', { name: 'Apply' }).click();
    await notice('Applied:');
    expect((await get(`/v1/memory-proposals/${first.id}`)).status).toBe('applied');
    const memory = await get(`/v1/brands/${brandId}/memory`);
    const target = {
      'voice.do': memory.voice.do,
      'voice.avoid': memory.voice.avoid,
      style_rules: memory.style_rules,
    }[first.change.target as 'voice.do'];
    const rule = target.find((r: { text: string }) => r.text === first.change.text);
    expect(rule.evidence.map((e: { id: string }) => e.id)).toEqual(
      first.evidence.map((e: { post_id: string }) => e.post_id),
    );
    // The page shows the new rule in its section with links to its evidence posts.
    await card.waitFor({ state: 'detached' });
    const shownRule = page.locator('.rules > li').filter({ hasText: first.change.text });
    await shownRule.waitFor();
    expect(await shownRule.locator(`a[href="/posts/${first.evidence[0].post_id}"]`).count()).toBe(1);
    await expectFitsPhone(page, 'memory-390');
  });

  it('dismisses a memory proposal and leaves Brand Memory as it was', async () => {
    const [next] = (await get(`/v1/memory-proposals?brand_id=${brandId}&status=pending`)).memory_proposals;
    const before = await get(`/v1/brands/${brandId}/memory`);
    await page.locator(`#proposal-${next.id}`).getByRole('button', { name: 'Dismiss' }).click();
    await notice('Dismissed:');
    expect((await get(`/v1/memory-proposals/${next.id}`)).status).toBe('dismissed');
    expect(await get(`/v1/brands/${brandId}/memory`)).toEqual(before);
    await page.locator(`#proposal-${next.id}`).waitFor({ state: 'detached' });
  });

  it('says so in words, with the request id, when a proposal was decided elsewhere, and changes nothing', async () => {
    const [next] = (await get(`/v1/memory-proposals?brand_id=${brandId}&status=pending`)).memory_proposals;
    const card = page.locator(`#proposal-${next.id}`);
    await card.waitFor();
    // Someone dismisses it through the API while the page still offers it.
    expect((await api(svc.url, 'POST', `/v1/memory-proposals/${next.id}/dismiss`)).status).toBe(200);
    const before = await get(`/v1/brands/${brandId}/memory`);
    await card.getByRole('button', { name: 'Apply' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Request id: req_/);
    expect((await get(`/v1/memory-proposals/${next.id}`)).status).toBe('dismissed');
    expect(await get(`/v1/brands/${brandId}/memory`)).toEqual(before);
    // The page shows the proposal as it is now: no longer pending.
    await card.waitFor({ state: 'detached' });
  });

  it('says a post that does not exist is not found, with the request id', async () => {
    await open('/posts/post_nope', 'Post');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/Request id: req_/);
    expect((await api(svc.url, 'GET', '/v1/posts/post_nope')).status).toBe(404);
  });

  it('opens a campaign canvas, adds a note, edits it and moves it by keyboard', async () => {
    await open('/campaigns', 'Campaigns');
    const [campaign] = (await get(`/v1/campaigns?brand_id=${brandId}`)).campaigns;
    await expectAccessible(page);
    await page.getByRole('link', { name: campaign.name }).click();
    await page.getByRole('heading', { name: `Campaign: ${campaign.name}`, level: 1 }).waitFor();
    const canvas = async () => (await get(`/v1/campaigns/${campaign.id}/canvas`)).items;
    const seeded = await canvas();
    await page.locator('.note').first().waitFor();
    expect(await page.locator('.note').count()).toBe(seeded.length);
    for (const item of seeded) expect(await page.locator('.board').textContent()).toContain(item.text);

    const add = page.locator('form').filter({ has: page.getByRole('heading', { name: 'Add a note' }) });
    await add.getByLabel('Note text').fill('Interview three teams that dropped standups');
    await add.getByLabel('Colour').selectOption('green');
    await add.getByRole('button', { name: 'Add note' }).click();
    await notice('Note added');
    const added = (await canvas()).find(
      (i: { text: string }) => i.text === 'Interview three teams that dropped standups',
    );
    expect(added).toMatchObject({ kind: 'note', color: 'green' });

    await page.getByRole('button', { name: 'Edit note: Interview three teams' }).click();
    const editor = page.getByRole('form', { name: 'Edit note' });
    await editor.getByLabel('Note text').fill('Interview three teams that dropped daily standups');
    await editor.getByRole('button', { name: 'Save note' }).click();
    await notice('Note saved');
    expect((await canvas()).find((i: { id: string }) => i.id === added.id).text).toBe(
      'Interview three teams that dropped daily standups',
    );

    const handle = page.getByRole('button', { name: /^Move note: Interview three teams that dropped/ });
    await handle.focus();
    await page.keyboard.press('ArrowDown');
    await notice(`Note moved to ${added.x}, ${added.y + 20}.`);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    // Said only once the save of the last position is answered (a waitForFunction with an async
    // predicate passes at once: its promise is truthy, so it read the server mid-way on CI).
    await notice(`Note moved to ${added.x + 40}, ${added.y + 20}.`);
    expect((await canvas()).find((i: { id: string }) => i.id === added.id)).toMatchObject({
      x: added.x + 40,
      y: added.y + 20,
    });

    // Saving hands the focus back to the note's Edit button; Escape closes the editor unsaved.
    await page.getByRole('button', { name: 'Edit note: Interview three teams' }).click();
    // The editor takes the focus as it opens: the keys below go to its text, not the page.
    await page.waitForFunction(() => document.activeElement?.closest('form')?.ariaLabel === 'Edit note');
    await page.keyboard.type(' (draft)');
    await page.keyboard.press('Escape');
    await page.getByRole('form', { name: 'Edit note' }).waitFor({ state: 'detached' });
    await page.waitForFunction(() =>
      document.activeElement?.getAttribute('aria-label')?.startsWith('Edit note:'),
    );
    expect((await canvas()).find((i: { id: string }) => i.id === added.id).text).toBe(
      'Interview three teams that dropped daily standups',
    );

    // Dragging a note by its handle moves it by as much, saved when it is let go.
    const grip = await handle.boundingBox();
    if (!grip) throw new Error('the handle is not on screen');
    const before = (await canvas()).find((i: { id: string }) => i.id === added.id);
    await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2);
    await page.mouse.down();
    await page.mouse.move(grip.x + grip.width / 2 + 30, grip.y + grip.height / 2 + 50, { steps: 5 });
    await page.mouse.up();
    await notice(`Note moved to ${before.x + 30}, ${before.y + 50}.`);
    expect((await canvas()).find((i: { id: string }) => i.id === added.id)).toMatchObject({
      x: before.x + 30,
      y: before.y + 50,
    });

    await screenshot(page, 'campaign-desktop', { fullPage: false });
    await expectFitsPhone(page, 'campaign-390');
    await expectAccessible(page);
  });

  it('keeps a note where the arrow keys left it when an earlier move is answered while a key is down', async () => {
    const [campaign] = (await get(`/v1/campaigns?brand_id=${brandId}`)).campaigns;
    await open(`/campaigns/${campaign.id}`, `Campaign: ${campaign.name}`);
    const [item] = (await get(`/v1/campaigns/${campaign.id}/canvas`)).items;
    const note = page.locator(`[data-note-id="${item.id}"]`);
    const left = async () =>
      Number.parseFloat((await note.evaluate((el) => (el as HTMLElement).style.left)) ?? '');
    const isSave = (url: string, method: string) => method === 'PATCH' && url.includes('/canvas/items/');

    // The first move's save is held back until the second key is down: its answer (x + 20) then
    // lands while the screen already shows x + 40, as when an arrow key repeats on a slow network.
    let held: Route | undefined;
    const holding = new Promise<void>((resolve) =>
      page.route('**/v1/campaigns/*/canvas/items/*', (route) => {
        if (held || !isSave(route.request().url(), route.request().method())) return route.continue();
        held = route;
        resolve();
      }),
    );
    await note.locator('.note-handle').focus();
    const start = await left();
    await page.keyboard.press('ArrowRight');
    await holding;
    await page.keyboard.down('ArrowRight');
    expect(await left()).toBe(start + 40);
    const firstAnswer = page.waitForResponse((r) => isSave(r.url(), r.request().method()));
    await held?.continue();
    await firstAnswer;
    await notice(`Note moved to ${item.x + 20}, ${item.y}.`);
    // Two frames: whatever the app does after it has drawn the first answer has been done.
    await page.evaluate(
      () => new Promise((done) => requestAnimationFrame(() => setTimeout(() => requestAnimationFrame(done)))),
    );
    expect(await left(), 'the older answer does not pull the note back').toBe(start + 40);
    const secondAnswer = page.waitForResponse((r) => isSave(r.url(), r.request().method()));
    await page.keyboard.up('ArrowRight');
    expect((await (await secondAnswer).json()).x).toBe(item.x + 40);
    await notice(`Note moved to ${item.x + 40}, ${item.y}.`);
    expect((await get(`/v1/campaigns/${campaign.id}/canvas`)).items[0]).toMatchObject({
      id: item.id,
      x: item.x + 40,
      y: item.y,
    });
    expect(await left()).toBe(start + 40);
    await page.unroute('**/v1/campaigns/*/canvas/items/*');
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    browser();
    expect(problems).toEqual([]);
  });
});

describe('the web app: results pages on an empty workspace, and stored links that are not http(s)', () => {
  let svc: TestService;
  let page: Page;
  let problems: string[] = [];
  const browser = useBrowser();
  beforeAll(async () => {
    svc = await startTestService('content');
    await (svc.handle as { ready?: Promise<void> }).ready;
    page = await browser().page();
    problems = watchProblems(page);
  }, 120_000);
  afterAll(() => svc?.close());

  it('says to create a brand first on each page', async () => {
    for (const [path, title] of [
      ['/posts', 'Posts'],
      ['/insights', 'Insights'],
      ['/memory', 'Brand Memory'],
      ['/campaigns', 'Campaigns'],
    ] as const) {
      await page.goto(`${svc.url}${path}`);
      await page.getByRole('heading', { name: title, level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'No brand yet' }).waitFor();
      // It leads to the app's own New brand page, not to the API.
      expect(await page.getByRole('link', { name: 'Create a brand' }).getAttribute('href')).toBe(
        '/brands/new',
      );
      await expectAccessible(page);
    }
  });

  it('shows a stored javascript: URL as text, never as a link', async () => {
    const products = [
      { name: 'Trap', url: 'javascript:alert(document.domain)' },
      { name: 'Site', url: 'https://example.com/product' },
    ];
    // The API refuses such a link now; a database written before it did may still hold one.
    const refused = await api(svc.url, 'POST', '/v1/brands', {
      body: { name: 'Odd links', memory: { products } },
    });
    expect(refused.status).toBe(400);
    const brand = await api(svc.url, 'POST', '/v1/brands', {
      body: { name: 'Odd links', memory: { products: [products[1]] } },
    });
    expect(brand.status).toBe(201);
    const memory = {
      ...brand.body.memory,
      products: products.map((p, i) => ({ id: `mem_${i}`, description: '', ...p })),
    };
    await (svc.handle as unknown as { db: SqlDatabase }).db.run('UPDATE brands SET memory = ? WHERE id = ?', [
      JSON.stringify(memory),
      brand.body.id,
    ]);
    await page.goto(`${svc.url}/memory`);
    await page.getByRole('heading', { name: 'Products' }).waitFor();
    await page.getByText('javascript:alert(document.domain)').waitFor();
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'https://example.com/product' }).getAttribute('href')).toBe(
      'https://example.com/product',
    );
  });

  it('offers to make the first digest, and shows it once made', async () => {
    await page.goto(`${svc.url}/insights`);
    await page.getByRole('heading', { name: 'No digest yet' }).waitFor();
    await page.getByRole('button', { name: 'Make a new digest' }).click();
    await page.getByRole('status').filter({ hasText: 'A new digest is ready.' }).waitFor();
    const brandId = (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id;
    const digest = await api(svc.url, 'GET', `/v1/brands/${brandId}/digest`);
    expect(digest.status).toBe(200);
    await page.getByText(digest.body.headline).waitFor();
    expect(await page.getByRole('heading', { name: 'No digest yet' }).count()).toBe(0);
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    browser();
    expect(problems).toEqual([]);
  });
});
