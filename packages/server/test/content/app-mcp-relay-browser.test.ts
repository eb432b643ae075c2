import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EXAMPLE_CHECKOUT,
  expectAccessible,
  expectFitsPhone,
  hideCheckoutPath,
  screenshot,
  watchProblems,
} from '../helpers/app-pages.js';
import { useBrowser } from '../helpers/browser.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

interface StdioEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * Issue 22, item 10: until @svc/content-client is published, `npx -y @svc/content-client`
 * cannot fetch the relay, so Settings offers the relay built in this checkout beside it. The
 * snippet is taken from the page as a person would copy it, and its command is run: an MCP
 * client completes initialize and tools/list through it.
 */
describe('the web app: an MCP configuration that works today', { timeout: 120_000 }, () => {
  let svc: TestService;
  let page: Page;
  let problems: string[] = [];
  const browser = useBrowser();

  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
    page = await browser().page();
    problems = watchProblems(page);
  });
  afterAll(() => svc?.close());

  it('offers the stdio config of this checkout beside the npx one, and its command lists the 23 tools', async () => {
    const { relay } = (await api(svc.url, 'GET', '/v1/mcp-relay')).body;
    expect(isAbsolute(relay.args[0])).toBe(true);
    expect(existsSync(relay.args[0])).toBe(true);
    expect(relay.command).toBe(process.execPath);

    await page.goto(`${svc.url}/settings`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByLabel('Key name').fill('Claude Desktop here');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByRole('textbox', { name: 'The new API key' }).inputValue();
    expect(key).toMatch(/^svc_[A-Za-z0-9]{32}$/);

    const local = page.locator('#mcp-claude-desktop-local');
    await local.waitFor();
    const copied = JSON.parse((await local.textContent()) ?? '') as { mcpServers: { svc: StdioEntry } };
    expect(copied.mcpServers.svc).toEqual({
      command: relay.command,
      args: relay.args,
      env: { SERVICE_API_URL: svc.url, SERVICE_API_KEY: key },
    });
    // The npx variant is still there, beside it.
    const npx = JSON.parse((await page.locator('#mcp-claude-desktop').textContent()) ?? '');
    expect(npx.mcpServers.svc.command).toBe('npx');
    await expect(
      page.getByRole('button', { name: /^Copy the Claude Desktop, with the relay/ }).count(),
    ).resolves.toBe(1);
    await expectAccessible(page);
    await page.evaluate(() => document.getElementById('mcp')?.scrollIntoView());
    // The screenshot shows a neutral folder, not this checkout's; the page gets its own text back.
    const shown = await local.textContent();
    const restore = await hideCheckoutPath(page);
    const pictured = (await local.textContent()) ?? '';
    expect(pictured).toContain(`${EXAMPLE_CHECKOUT}/packages/content-client/`);
    expect(pictured).not.toContain(relay.args[0]);
    await restore();
    expect(await local.textContent()).toBe(shown);
    await screenshot(page, 'settings-mcp-desktop', { fullPage: false });
    await expectFitsPhone(page);

    // Run the copied entry as an MCP client would: its command, its args, its env.
    const entry = copied.mcpServers.svc;
    let stderr = '';
    const transport = new StdioClientTransport({ ...entry, stderr: 'pipe' });
    transport.stderr?.on('data', (c) => {
      stderr += c;
    });
    const client = new Client({ name: 'copied-config', version: '0.0.0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('svc-content');
      expect((await client.listTools()).tools).toHaveLength(23);
    } finally {
      await client.close();
    }
    expect(stderr).toBe('');
    // The server saw the calls under the key the snippet carried.
    const calls = await api(svc.url, 'GET', '/v1/api-keys');
    const used = calls.body.api_keys.find((k: { name: string }) => k.name === 'Claude Desktop here');
    expect(used.last_used_at).not.toBeNull();
  });

  it('ran without a script error or a Content-Security-Policy violation', () => {
    browser();
    expect(problems).toEqual([]);
  });
});
