import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'commerce-client',
    include: ['test/**/*.test.ts'],
    // The integration suite starts a real server; give it room on slow CI.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
