import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, expectFitsPhone, screenshot, watchProblems } from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { connect, makeKey, rawMcp, text } from './mcp-helpers.js';

/**
 * Agents and runs, automations, and settings (API keys, MCP snippets, channels, mode, the sandbox
 * clock) driven by a real Chromium against a real server on the demo seed: every click goes
 * through the app and the REST API, and every effect is checked through the API (and MCP).
 */
describe('the web app: agents, automations and settings in a real browser', () => {
  let svc: TestService;
  let page: Page;
  let problems: string[] = [];
  let brandId: string;
  /** The weekly plan run started from the Agents page. */
  let runId: string;
  const browser = useBrowser();
  const notice = (text: string) => page.getByRole('status').filter({ hasText: text }).first().waitFor();
  const get = async (path: string) => (await api(svc.url, 'GET', path)).body;

  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
    await (svc.handle as { ready?: Promise<void> }).ready;
    brandId = (await get('/v1/brands')).brands[0].id;
  });
  afterAll(() => svc?.close());

  it('lists the built-in agents and runs one with the inputs as the API takes them', async () => {
    page = await browser().page();
    problems = watchProblems(page);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${svc.url}/agents`);
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    const agents = (await get('/v1/agents')).agents as { id: string; name: string }[];
    for (const a of agents)
      await page.getByRole('heading', { name: a.name, level: 3, exact: true }).waitFor();
    await expectAccessible(page);
    await screenshot(page, 'agents-desktop');
    await expectFitsPhone(page, 'agents-390');

    await page.getByRole('button', { name: 'Run Weekly plan' }).click();
    const form = page.getByRole('form', { name: 'Inputs for Weekly plan' });
    // The brand is chosen once the brands have loaded, not with the form's first frame.
    await expect.poll(() => form.getByLabel('Brand').inputValue()).toBe(brandId);
    await form.getByRole('checkbox', { name: 'x', exact: true }).check();
    await form.getByLabel('count (optional)').fill('2');
    await form.getByRole('button', { name: 'Run Weekly plan' }).click();
    await page.waitForURL(/\/agents\/runs\/[^/]+$/);
    runId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() as string);
    const run = await get(`/v1/agent-runs/${runId}`);
    expect(run).toMatchObject({
      agent_id: 'weekly_plan',
      status: 'succeeded',
      source: 'app',
      inputs: { brandId, platforms: ['x'], count: 2 },
    });
  });

  it('opens the run: inputs, steps with timings, child runs and the approvals it queued, linked', async () => {
    browser();
    const run = await get(`/v1/agent-runs/${runId}`);
    await page.getByRole('heading', { name: 'Weekly plan run', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Steps' }).waitFor();
    const steps = page.locator('.steps > li');
    expect(await steps.count()).toBe(run.steps.length);
    for (const [i, s] of run.steps.entries()) {
      const text = await steps.nth(i).textContent();
      expect(text).toContain(s.name);
      expect(text).toMatch(/\d+(\.\d)? m?s, started/);
    }
    expect(run.approvals.length).toBeGreaterThan(0);
    for (const a of run.approvals) {
      const link = page.locator(`a[href="/approvals#approval-${a.id}"]`);
      expect(await link.count()).toBe(1);
    }
    expect(run.child_runs.length).toBeGreaterThan(0);
    for (const c of run.child_runs)
      expect(await page.locator(`a[href="/agents/runs/${c.id}"]`).count()).toBe(1);
    // The brandId input is named by the brand's name, not its id.
    const brandName = (await get(`/v1/brands/${brandId}`)).name;
    const inputs = await page.locator('main').textContent();
    expect(inputs).toContain(brandName);
    expect(inputs).not.toContain(brandId);
    await expectAccessible(page);
    await screenshot(page, 'agent-run-desktop');
    await expectFitsPhone(page, 'agent-run-390');

    // A child run opens its own page, which links back to its parent.
    await page.locator(`a[href="/agents/runs/${run.child_runs[0].id}"]`).click();
    await page.getByRole('link', { name: 'the parent run' }).click();
    await page.waitForURL(`**/agents/runs/${runId}`);
    // An approval it queued opens on the Approvals page.
    await page.locator(`a[href="/approvals#approval-${run.approvals[0].id}"]`).click();
    await page.locator(`#approval-${run.approvals[0].id}`).waitFor();
  });

  it('shows a refused run in words with the request id, and records nothing', async () => {
    browser();
    await page.goto(`${svc.url}/agents`);
    const before = (await get('/v1/agent-runs?limit=100')).agent_runs.length;
    await page.getByRole('button', { name: 'Run Voice check' }).click();
    const form = page.getByRole('form', { name: 'Inputs for Voice check' });
    await form.getByLabel('draftId').fill('drf_nope');
    await form.getByRole('button', { name: 'Run Voice check' }).click();
    const alert = page.getByRole('article', { name: 'Voice check' }).getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/drf_nope[\s\S]*Request id: req_/);
    expect(new URL(page.url()).pathname).toBe('/agents');
    expect((await get('/v1/agent-runs?limit=100')).agent_runs.length).toBe(before);
  });

  it('creates an automation, runs it now, pauses and resumes it, and edits it', async () => {
    browser();
    await page.goto(`${svc.url}/agents`);
    await page.getByRole('button', { name: 'New automation' }).click();
    const form = page.getByRole('form', { name: 'Create automation' });
    await form.getByLabel('Name').fill('Monday plan');
    await form.getByLabel('Agent').selectOption('weekly_plan');
    await form.getByLabel('count (optional)').fill('1');
    await form.getByLabel('Every').selectOption('week');
    await form.getByLabel('Day', { exact: true }).selectOption({ label: 'Monday' });
    await form.getByLabel('Hour (server time)').selectOption({ label: '09:00' });
    await form.getByLabel('Daily cap (runs a day)').fill('2');
    await form.getByRole('button', { name: 'Create automation' }).click();
    await notice('Automation “Monday plan” created.');
    const list = async () => (await get(`/v1/automations?brand_id=${brandId}`)).automations;
    const [created] = (await list()).filter((a: { name: string }) => a.name === 'Monday plan');
    expect(created).toMatchObject({
      agent_id: 'weekly_plan',
      inputs: { brandId, count: 1 },
      trigger: { type: 'schedule', every: 'week', weekday: 1, hour: 9 },
      daily_cap: 2,
      enabled: true,
      runs_today: 0,
    });
    const card = page.getByRole('article', { name: /Monday plan/ });
    expect(await card.textContent()).toContain('Today: 0 of 2 runs');

    await card.getByRole('button', { name: 'Run now' }).click();
    // In the card that asked, not at the top of the section.
    await card.getByRole('status').filter({ hasText: 'Monday plan ran now.' }).waitFor();
    await card.getByText('Today: 1 of 2 runs').waitFor();
    const ran = await get(`/v1/automations/${created.id}`);
    expect(ran.runs_today).toBe(1);
    const latest = card.getByRole('link', { name: 'Open its latest run' });
    expect(await latest.getAttribute('href')).toBe(`/agents/runs/${ran.last_fire.run_id}`);

    await card.getByRole('button', { name: 'Pause' }).click();
    await card.getByRole('status').filter({ hasText: 'Monday plan paused.' }).waitFor();
    expect((await get(`/v1/automations/${created.id}`)).enabled).toBe(false);
    await card.getByRole('button', { name: 'Resume' }).click();
    await card.getByRole('status').filter({ hasText: 'Monday plan resumed.' }).waitFor();
    expect((await get(`/v1/automations/${created.id}`)).enabled).toBe(true);

    await card.getByRole('button', { name: 'Edit' }).click();
    const edit = card.getByRole('form', { name: 'Save automation' });
    expect(await edit.getByLabel('Name').inputValue()).toBe('Monday plan');
    await edit.getByLabel('Name').fill('Tuesday plan');
    await edit.getByLabel('Day', { exact: true }).selectOption({ label: 'Tuesday' });
    await edit.getByRole('button', { name: 'Save automation' }).click();
    await notice('Automation “Tuesday plan” saved.');
    expect(await get(`/v1/automations/${created.id}`)).toMatchObject({
      name: 'Tuesday plan',
      trigger: { weekday: 2, hour: 9 },
      daily_cap: 2,
      inputs: { brandId, count: 1 },
    });
    await expectAccessible(page);
  });

  it('creates an API key, shows it once with Copy, revokes it, and MCP refuses it after', async () => {
    browser();
    await browser().context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.url });
    await page.goto(`${svc.url}/settings`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByLabel('Key name').fill('Laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    await notice('Key “Laptop” created.');
    const key = await page.getByRole('textbox', { name: 'The new API key' }).inputValue();
    expect(key).toMatch(/^svc_[A-Za-z0-9]{32}$/);
    const listed = (await get('/v1/api-keys')).api_keys.find((k: { name: string }) => k.name === 'Laptop');
    expect(listed).toMatchObject({ scopes: ['read', 'write'], prefix: key.slice(0, 12), last_used_at: null });

    await page.getByRole('button', { name: 'Copy the new API key' }).click();
    await notice('Copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    // The MCP snippets carry the new key for this server.
    const cursor = await page.locator('#mcp-cursor').textContent();
    expect(JSON.parse(cursor as string)).toEqual({
      mcpServers: { svc: { url: `${svc.url}/mcp`, headers: { Authorization: `Bearer ${key}` } } },
    });

    // Dismissed, the key is gone from the page and from the snippets.
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.locator('#mcp-cursor').textContent()).toContain('svc_YOUR_KEY');
    expect(await page.content()).not.toContain(key);

    // The key works over MCP, and the page then shows when it was last used.
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    };
    expect((await rawMcp(svc, { key, body: init })).status).toBe(200);
    await page.reload();
    const row = page.getByRole('article', { name: 'Laptop' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/last used/);
    // Shown once: after a reload the full key is nowhere on the page.
    expect(await page.content()).not.toContain(key);
    await expectAccessible(page);
    await screenshot(page, 'settings-desktop');
    await expectFitsPhone(page, 'settings-390');

    await row.getByRole('button', { name: 'Revoke Laptop' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await notice('Key “Laptop” revoked.');
    expect((await get('/v1/api-keys')).api_keys.map((k: { name: string }) => k.name)).not.toContain('Laptop');
    const refused = await rawMcp(svc, { key, body: init });
    expect(refused.status).toBe(401);
  });

  it('connects a sandbox channel at once, says so after the OAuth return, and disconnects it', async () => {
    browser();
    const form = page.getByRole('form', { name: 'Connect a channel' });
    await form.getByLabel('Platform').selectOption({ label: 'Threads' });
    await form.getByLabel('Handle (optional)').fill('fieldnote_threads');
    await form.getByRole('button', { name: 'Connect' }).click();
    await notice('Threads connected.');
    const channels = (await get(`/v1/channels?brand_id=${brandId}`)).channels;
    const threads = channels.find((c: { platform: string; status: string }) => c.platform === 'threads');
    expect(threads).toMatchObject({ kind: 'sandbox', status: 'connected' });
    const card = page.getByRole('article', { name: `Threads ${threads.handle}` });
    await card.waitFor();

    // Where the live OAuth callback sends the person back, in words.
    await page.goto(`${svc.url}/settings?connected=${threads.id}`);
    await notice(`Threads ${threads.handle} is connected.`);
    await page.goto(`${svc.url}/settings?connect_error=access_denied`);
    expect(await page.getByRole('alert').first().textContent()).toContain(
      'you declined access on the platform',
    );

    await card.getByRole('button', { name: 'Disconnect' }).click();
    await card.getByRole('button', { name: 'Yes, disconnect' }).click();
    await notice(`Threads ${threads.handle} disconnected.`);
    expect((await get(`/v1/channels/${threads.id}`)).status).toBe('disconnected');
  });

  it('advances the sandbox clock and shows what happened', async () => {
    browser();
    // An approved post from the weekly plan run, scheduled within the week.
    const run = await get(`/v1/agent-runs/${runId}`);
    const approved = await api(svc.url, 'POST', `/v1/approvals/${run.approvals[0].id}/approve`, { body: {} });
    expect(approved.status).toBe(200);
    const postId = approved.body.post_id as string;
    const before = await get('/v1/sandbox/clock');
    await page.goto(`${svc.url}/settings#clock`);
    const form = page.getByRole('form', { name: 'Advance the sandbox clock' });
    await form.getByLabel('Amount').fill('8');
    await form.getByLabel('Unit').selectOption('days');
    await form.getByRole('button', { name: 'Advance the clock' }).click();
    await notice('The sandbox clock moved forward 8 days.');
    const after = await get('/v1/sandbox/clock');
    expect(after.offset_ms - before.offset_ms).toBe(8 * 86_400_000);
    expect((await get(`/v1/posts/${postId}`)).status).toBe('published');
    const happened = page.getByRole('region', { name: 'What happened' });
    expect(await happened.textContent()).toMatch(/\d+ posts? published/);
    expect(await happened.locator(`a[href="/posts/${postId}"]`).count()).toBe(1);
    // Posts are named by their text: the link reads the post's first words, never its id.
    const words = (await get(`/v1/posts/${postId}`)).parts[0].text.split('\n')[0].slice(0, 24);
    await happened.locator(`a[href="/posts/${postId}"]`).filter({ hasText: words }).waitFor();
    expect(await happened.textContent()).not.toMatch(/\b(post|auto|run)_[A-Za-z0-9]{4,}/);
    await expectAccessible(page);
    expect(await page.locator('#clock').textContent()).toContain('(8 days ahead of real time)');
    await happened.scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-clock', { fullPage: false });
  });

  it('shows the mode label on every page of the main navigation', async () => {
    browser();
    await page.goto(`${svc.url}/`);
    const nav = page.getByRole('navigation', { name: 'Main' }).getByRole('link');
    const names = await nav.allTextContents();
    expect(names).toEqual(expect.arrayContaining(['Approvals', 'Agents', 'Settings']));
    const { label } = await get('/v1/mode');
    for (const name of names) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      expect(await page.getByRole('heading', { level: 1 }).first().textContent()).not.toBe('Page not found');
      await page.getByRole('banner').getByText(label.replace(/[()]/g, '')).waitFor();
    }
  });

  it('names only app pages that exist, in every message and MCP text that sends people to the app', async () => {
    const tab = await browser().page();
    // What the server says to people and agents: the MCP instructions and tool descriptions, the
    // 401s for a missing or unknown key, and the refusal for a missing scope.
    const writer = await makeKey(svc, ['write'], 'write only');
    const client = await connect(svc, writer.key);
    const texts = [
      client.getInstructions() ?? '',
      ...(await client.listTools()).tools.map((t) => t.description ?? ''),
      text(await client.callTool({ name: 'list_brands', arguments: {} })),
      (await rawMcp(svc, { body: {} })).raw,
      (await rawMcp(svc, { key: `svc_${'x'.repeat(32)}`, body: {} })).raw,
    ];
    await client.close();
    const all = texts.join('\n');
    expect(all).toContain('Settings → API keys');
    // Every mention of the app names its page: `the app (Title, [http://host:port]/path)`.
    const mentions = all.match(/\bthe app\b/g) ?? [];
    const named = [
      ...all.matchAll(/\bthe app \(([^,()]+), (https?:\/\/[^/\s]+)?(\/[a-z][a-z0-9/-]*)(#[a-z-]+)?\)/g),
    ];
    expect(mentions.length).toBeGreaterThan(0);
    expect(named.length, 'every "the app" names a page path').toBe(mentions.length);
    const pages = new Map(named.map((m) => [`${m[3]}${m[4] ?? ''}`, m[1] as string]));
    for (const [path, title] of pages) {
      await tab.goto(`${svc.url}${path}`);
      const h1 = tab.getByRole('heading', { level: 1 });
      await h1.waitFor();
      expect(await h1.textContent(), `${path} is a page of the app`).toBe(title.split(' → ')[0]);
      const anchor = path.split('#')[1];
      if (anchor) await tab.locator(`#${anchor}`).waitFor();
    }
    await tab.close();
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    browser();
    expect(problems).toEqual([]);
  });
});

describe('the web app: settings in live mode', () => {
  let svc: TestService;
  const browser = useBrowser();
  beforeAll(async () => {
    svc = await startTestService('content', { config: { mode: 'live' } });
  });
  afterAll(() => svc?.close());

  it('says live, and explains that there is no sandbox clock to move', async () => {
    const page = await browser().page();
    const problems = watchProblems(page);
    await page.goto(`${svc.url}/settings`);
    await page.getByRole('heading', { name: 'Clock', level: 2 }).waitFor();
    const mode = (await api(svc.url, 'GET', '/v1/mode')).body;
    expect(mode.sandbox_clock).toBe(false);
    // The mode label has a GET /v1/mode of its own, which may answer after the settings page's.
    await page.getByRole('banner').getByText(`live · ${mode.model}`).waitFor();
    expect(await page.locator('#clock').textContent()).toContain('runs in live mode on real time');
    expect(await page.getByRole('button', { name: 'Advance the clock' }).count()).toBe(0);
    expect(await page.locator('#mode').textContent()).toContain('posts publish to the real platforms');
    await expectAccessible(page);
    expect(problems).toEqual([]);
    await page.close();
  });
});
