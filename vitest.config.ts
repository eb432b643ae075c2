import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // client-core's suite runs a second time over fetch (its vitest.fetch.config.ts).
    projects: ['packages/*', 'packages/client-core/vitest.fetch.config.ts', 'examples/*', 'scripts'],
    // Most tests wait on sockets (servers, Chromium, PostgreSQL) more than they compute, so two
    // test files at a time pay off even on a 2-core machine, where vitest's default would be one.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
