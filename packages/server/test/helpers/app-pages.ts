import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * What every browser test of the web app checks on its pages: no script errors, no serious
 * or critical axe-core violations, no sideways scrolling at 390 px, and the screenshots in
 * docs/screenshots, taken by the tests so they always show the app as it is. They are written
 * only by `pnpm screenshots` (SVC_SCREENSHOTS=1): a plain test run leaves the clone unchanged.
 */

const SCREENSHOTS = join(dirname(fileURLToPath(import.meta.url)), '../../../../docs/screenshots');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Collects the page's script errors and console errors. Chromium also logs every refused
 * request ("Failed to load resource"); tests that provoke one on purpose are not failures.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return problems;
}

/**
 * The serious and critical axe-core violations on the page as it is now, each with up to three
 * of its elements. axe-core goes in through the DevTools protocol: the pages' CSP allows only
 * their own scripts.
 */
export async function axeViolations(
  page: Page,
): Promise<{ id: string; impact: string; help: string; targets: string[] }[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe-core is injected as a global.
    const axe = (globalThis as any).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    // biome-ignore lint/suspicious/noExplicitAny: axe-core's result objects.
    return r.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      // biome-ignore lint/suspicious/noExplicitAny: axe-core's result objects.
      targets: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')),
    }));
  });
  return result.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical');
}

/** Fails on any serious or critical axe-core violation. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await axeViolations(page)).toEqual([]);
}

/** At 390 px wide (a phone), the page never scrolls sideways. Restores the viewport after. */
export async function expectFitsPhone(page: Page, screenshotName?: string): Promise<void> {
  const before = page.viewportSize() ?? { width: 1280, height: 900 };
  await page.setViewportSize({ width: 390, height: 844 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, 'no sideways scrolling at 390 px').toBeLessThanOrEqual(0);
  if (screenshotName) await screenshot(page, screenshotName, { fullPage: false });
  await page.setViewportSize(before);
}

/** Saves docs/screenshots/<name>.png, when SVC_SCREENSHOTS=1 (`pnpm screenshots`); else does nothing. */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.SVC_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: opts.fullPage ?? true });
}
