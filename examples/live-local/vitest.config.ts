import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'example-live-local', testTimeout: 120_000 },
});
