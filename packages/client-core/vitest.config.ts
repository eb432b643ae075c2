import { defineConfig } from 'vitest/config';

// Every file runs twice: over node:http here (the default on Node), over fetch in
// vitest.fetch.config.ts (everywhere else, and whenever a fetch is given or installed).
export default defineConfig({
  test: {
    name: 'client-core',
    include: ['test/**/*.test.ts'],
    env: { SVC_CLIENT_TEST_TRANSPORT: 'node' },
  },
});
