import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterEach, expect, it, vi } from 'vitest';
import { screenshot } from './helpers/app-pages.js';

// `npm test` must leave a clone as it found it: the browser tests' screenshots of the app are
// written to docs/screenshots/ only by `pnpm screenshots`, which sets SVC_SCREENSHOTS=1.
function recordingPage() {
  const paths: string[] = [];
  const page = {
    screenshot: async (opts: { path: string }) => {
      paths.push(opts.path);
      return Buffer.alloc(0);
    },
    // hideCheckoutPath's text swap: nothing on this page shows the checkout's folder.
    evaluate: async () => 0,
  } as unknown as Page;
  return { page, paths };
}
afterEach(() => vi.unstubAllEnvs());

it('takes no screenshot in a plain test run', async () => {
  vi.stubEnv('SVC_SCREENSHOTS', '');
  const { page, paths } = recordingPage();
  await screenshot(page, 'calendar-desktop');
  expect(paths).toEqual([]);
});

it('writes docs/screenshots/<name>.png when SVC_SCREENSHOTS=1 (pnpm screenshots)', async () => {
  vi.stubEnv('SVC_SCREENSHOTS', '1');
  const { page, paths } = recordingPage();
  await screenshot(page, 'calendar-desktop');
  expect(paths).toEqual([join(import.meta.dirname, '../../../docs/screenshots/calendar-desktop.png')]);
});
