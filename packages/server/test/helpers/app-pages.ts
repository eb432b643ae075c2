import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
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

/** This checkout's folder, and the neutral one the screenshots show in its place. */
const CHECKOUT = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
export const EXAMPLE_CHECKOUT = '/home/you/svc';

/**
 * Writes EXAMPLE_CHECKOUT wherever the page's text shows this checkout's folder (the MCP relay's
 * path in Settings), so a screenshot shows no developer's own folder; the returned function puts
 * the real text back. Only the picture changes: the server and the page's state are untouched.
 */
export async function hideCheckoutPath(page: Page): Promise<() => Promise<void>> {
  const replaced = await page.evaluate(
    ({ from, to }) => {
      const w = window as unknown as { __svcHidden?: [Text, string][] };
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      w.__svcHidden = [];
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n as Text;
        if (!text.data.includes(from)) continue;
        w.__svcHidden.push([text, text.data]);
        text.data = text.data.split(from).join(to);
      }
      return w.__svcHidden.length;
    },
    { from: CHECKOUT, to: EXAMPLE_CHECKOUT },
  );
  return async () => {
    if (!replaced) return;
    await page.evaluate(() => {
      const w = window as unknown as { __svcHidden?: [Text, string][] };
      for (const [text, data] of w.__svcHidden ?? []) text.data = data;
      w.__svcHidden = [];
    });
  };
}

/**
 * Saves docs/screenshots/<name>.png, when SVC_SCREENSHOTS=1 (`pnpm screenshots`); else does
 * nothing. The checkout's own folder shows as EXAMPLE_CHECKOUT (hideCheckoutPath).
 */
export async function screenshot(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.SVC_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  const restore = await hideCheckoutPath(page);
  try {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: opts.fullPage ?? true });
  } finally {
    await restore();
  }
}
