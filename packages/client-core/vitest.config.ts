import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'client-core',
    include: ['test/**/*.test.ts'],
  },
});
