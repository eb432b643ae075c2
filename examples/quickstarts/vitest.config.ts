import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { name: 'example-quickstarts', testTimeout: 60_000, hookTimeout: 30_000 },
});
