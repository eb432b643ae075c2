import { defineConfig } from 'vitest/config';

// Tests of the repository's own scripts (scripts/*.mjs): the platform documents' resolver and
// the closing summary line of `npm test`.
export default defineConfig({
  test: { name: 'scripts', include: ['test/**/*.test.mjs'], testTimeout: 60_000 },
});
