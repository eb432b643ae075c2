import { defineConfig } from 'vitest/config';

// client-core's suite again, over fetch (test/helpers.ts, useTransport).
export default defineConfig({
  test: {
    name: 'client-core-fetch',
    include: ['test/**/*.test.ts'],
    env: { SVC_CLIENT_TEST_TRANSPORT: 'fetch' },
  },
});
