import { defineConfig } from 'vitest/config';

/**
 * The suite runs once per engine (SVC_TEST_DATABASE=sqlite, the default, or postgres): the same
 * tests on both. A file named `*.postgres.test.ts` or `*.sqlite.test.ts` holds behaviour only one
 * engine has (the SQLite write gate, SQLite-only data fix-ups) and runs only in that engine's run.
 */
const engine = process.env.SVC_TEST_DATABASE || 'sqlite';
const otherEngine = engine === 'postgres' ? 'sqlite' : 'postgres';

export default defineConfig({
  test: {
    name: 'server',
    // The platforms' published documents, verified, before any contract test loads.
    globalSetup: ['test/fakes/platform-specs-setup.ts'],
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    exclude: [`**/*.${otherEngine}.test.ts`, '**/node_modules/**'],
    // Test files share one module graph per worker instead of importing the whole server again
    // for each of ~110 files (that import was about half of the suite's CPU time). Safe because
    // every test starts its own services, data directory and database, and no test file mocks
    // modules or leaves globals changed.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
