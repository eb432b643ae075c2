import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'example-live-ucp', testTimeout: 60_000, hookTimeout: 30_000 },
});
