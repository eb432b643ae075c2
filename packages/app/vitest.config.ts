import { defineProject } from 'vitest/config';

/**
 * The app has no tests of its own: the browser tests drive the built app against a real
 * server (packages/server/test/content/app-browser.test.ts, web-app.test.ts). This file keeps
 * Vitest from loading the build's vite.config.ts as a test project.
 */
export default defineProject({ test: { name: 'app', include: [] } });
