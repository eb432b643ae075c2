import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/**
 * The system Chromium (Debian's `chromium` package); tests never download a browser.
 * CHROMIUM_PATH points elsewhere on other systems.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export interface TestBrowser {
  browser: Browser;
  context: BrowserContext;
  /** A new tab in the shared context. */
  page(): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Headless Chromium through playwright-core. A missing browser is a failure with the fix in
 * the message, never a skipped test: CI installs it in .ci/run.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}; the browser tests need it. Install it with 'apt-get update && apt-get install -y chromium' (Debian/Ubuntu), or set CHROMIUM_PATH to a Chromium binary.`,
    );
  }
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext();
  return {
    browser,
    context,
    page: () => context.newPage(),
    close: async () => {
      await context.close();
      await browser.close();
    },
  };
}

/**
 * One browser for a describe block: launched before its tests, closed after. Call the returned
 * function in each test: when the launch failed (Chromium missing) it throws launchBrowser's
 * error, so every test fails with it instead of being reported as skipped.
 */
export function useBrowser(): () => TestBrowser {
  let browser: TestBrowser | undefined;
  let failure: unknown;
  beforeAll(async () => {
    try {
      browser = await launchBrowser();
    } catch (err) {
      failure = err;
    }
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (failure) throw failure;
    if (!browser) throw new Error('useBrowser: the browser is used outside a test.');
    return browser;
  };
}
