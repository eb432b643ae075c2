import { configDefaults, defineConfig } from 'vitest/config';

// As in the server package: a file named `*.sqlite.test.ts` / `*.postgres.test.ts` runs only in
// that engine's pass (SVC_TEST_DATABASE); the self-hosting quick start is the SQLite deployment.
const otherEngine = process.env.SVC_TEST_DATABASE === 'postgres' ? 'sqlite' : 'postgres';

export default defineConfig({
  test: {
    name: 'example-quickstarts',
    testTimeout: 60_000,
    hookTimeout: 30_000,
    exclude: [...configDefaults.exclude, `**/*.${otherEngine}.test.ts`],
  },
});
