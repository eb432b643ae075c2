// CI runs the example as a user would: a real commerce service on a temporary data directory,
// and the script as a separate Node process pointed at it through SERVICE_API_URL/SERVICE_API_KEY.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createCommerceApiKey,
  createCommerceApp,
  type Listening,
  listen,
  randomIds,
  silentLogger,
  systemClock,
  testConfig,
} from '@svc/server';
import { createTestEngineDatabase, type TestEngineDatabase } from '@svc/server/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

const run = promisify(execFile);
const script = join(import.meta.dirname, '..', 'checkout.mjs');
let listening: Listening;
let dataDir: string;
// SQLite in dataDir, or a fresh PostgreSQL database when SVC_TEST_DATABASE=postgres.
let database: TestEngineDatabase;
let key: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-example-checkout-'));
  database = await createTestEngineDatabase();
  const deps = {
    config: testConfig({ dataDir, ...database.config }),
    clock: systemClock,
    ids: randomIds,
    logger: silentLogger(),
  };
  const handle = await createCommerceApp(deps);
  ({ key } = await createCommerceApiKey(handle.db, deps, { env: 'sandbox', name: 'Checkout example' }));
  listening = await listen(handle, '127.0.0.1', 0);
});

afterAll(async () => {
  await listening?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

const env = (extra: Record<string, string>) => {
  const { SERVICE_API_KEY: _k, SERVICE_API_URL: _u, ...rest } = process.env;
  return { ...rest, ...extra };
};

it('buys in the sandbox and prints every step', async () => {
  const { stdout, stderr } = await run(process.execPath, [script], {
    env: env({ SERVICE_API_URL: listening.url, SERVICE_API_KEY: key }),
  });
  expect(stderr).toBe('');
  for (let n = 1; n <= 7; n++) expect(stdout).toMatch(new RegExp(`^${n}\\. `, 'm'));
  expect(stdout).toMatch(/^2\. Offer ofr_\w+: "Kettle" at \d+\.\d\d USD, in_stock$/m);
  expect(stdout).toMatch(/^3\. Checkout chk_\w+ is requires_user_action: /m);
  expect(stdout).toMatch(/^4\. Sent code; checkout is ready_to_confirm$/m);
  expect(stdout).toMatch(/^6\. Confirmed: completed, order ord_\w+ .*replayed: true$/m);
  expect(stdout).toMatch(/^7\. Order ord_\w+ is placed /m);
  expect(stdout).toMatch(/^Done: checkout chk_\w+, order ord_\w+\.$/m);
});

it('says clearly when the service is not running', async () => {
  const error = await run(process.execPath, [script], {
    env: env({ SERVICE_API_URL: 'http://127.0.0.1:9', SERVICE_API_KEY: key }),
  }).catch((e: { code: number; stderr: string }) => e);
  expect(error).toMatchObject({ code: 1 });
  expect((error as { stderr: string }).stderr).toMatch(
    /Cannot reach the commerce service at http:\/\/127\.0\.0\.1:9\b/,
  );
});

it('asks for a sandbox key when none is set', async () => {
  const error = await run(process.execPath, [script], { env: env({ SERVICE_API_URL: listening.url }) }).catch(
    (e: { code: number; stderr: string }) => e,
  );
  expect(error).toMatchObject({ code: 1 });
  expect((error as { stderr: string }).stderr).toMatch(/keys create --service commerce --env sandbox/);
});
