import type { Config } from '../config.js';
import { trimTrailingSlashes } from '../platform/trim-end.js';

/**
 * The pages of the web app (packages/app) that the server's own words send people to: error
 * messages, MCP tool descriptions and the MCP instructions. One table, so a message never names
 * a page that does not exist: every path here is a page in the app's page table
 * (packages/app/src/pages/index.tsx), and test/content/app-ops-browser.test.ts opens every app
 * path the messages mention and fails on "Page not found".
 */
export const APP_PAGES = {
  approvals: { title: 'Approvals', path: '/approvals' },
  apiKeys: { title: 'Settings → API keys', path: '/settings#api-keys' },
  memory: { title: 'Brand Memory', path: '/memory' },
  signals: { title: 'Ideas → Note a signal', path: '/ideas' },
} as const;
export type AppPage = keyof typeof APP_PAGES;

/** Where a person on this machine opens the app: CONTENT_PUBLIC_URL, else the address it listens on. */
export function appBaseUrl(config: Config): string {
  if (config.content.publicUrl) return trimTrailingSlashes(config.content.publicUrl);
  const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.content.port}`;
}

/**
 * `the app (Settings → API keys, http://127.0.0.1:3000/settings#api-keys)`, for a message built
 * with the config at hand; without it (fixed text such as a tool description) the path alone:
 * `the app (Approvals, /approvals)`.
 */
export function inTheApp(page: AppPage, config?: Config): string {
  const { title, path } = APP_PAGES[page];
  return `the app (${title}, ${config ? appBaseUrl(config) : ''}${path})`;
}
