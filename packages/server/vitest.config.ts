import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'server',
    // The platforms' published documents, verified, before any contract test loads.
    globalSetup: ['test/fakes/platform-specs-setup.ts'],
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
