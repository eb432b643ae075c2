import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'example-live-local',
    testTimeout: 120_000,
    // The fakes validate against the platforms' published documents: verified before the run.
    globalSetup: ['../../packages/server/test/fakes/platform-specs-setup.ts'],
  },
});
