import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'content-client',
    include: ['test/**/*.test.ts'],
    // The integration suite starts a real server and runs agents; give it room on slow CI.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
