// CI runs the example as a user would: a real commerce service on a temporary data directory,
// allowed to reach stores on this machine (SERVICE_STORES_ALLOW_PRIVATE), and the script as a
// separate Node process pointed at it with a live key. The script starts its own UCP store.
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
const script = join(import.meta.dirname, '..', 'buy.mjs');
let listening: Listening;
let dataDir: string;
// SQLite in dataDir, or a fresh PostgreSQL database when SVC_TEST_DATABASE=postgres.
let database: TestEngineDatabase;
let key: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-example-live-ucp-'));
  database = await createTestEngineDatabase();
  const deps = {
    // SERVICE_STORES_ALLOW_PRIVATE=1
    config: testConfig({ dataDir, ...database.config, storesAllowPrivate: true } as Parameters<
      typeof testConfig
    >[0]),
    clock: systemClock,
    ids: randomIds,
    logger: silentLogger(),
  };
  const handle = await createCommerceApp(deps);
  ({ key } = await createCommerceApiKey(handle.db, deps, { env: 'live', name: 'Live UCP example' }));
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

it('buys from a local UCP store with a live key and prints every step', async () => {
  const { stdout, stderr } = await run(process.execPath, [script], {
    env: env({ SERVICE_API_URL: listening.url, SERVICE_API_KEY: key }),
  });
  expect(stderr).toBe('');
  for (let n = 1; n <= 10; n++) expect(stdout).toMatch(new RegExp(`^${n}\\. `, 'm'));
  expect(stdout).toMatch(
    /^3\. Offer ofr_\w+: "Cast Iron Teapot" at 42\.00 USD, in_stock, from ucp_127\.0\.0\.1$/m,
  );
  expect(stdout).toMatch(
    /^4\. Checkout chk_\w+ is ready_to_confirm: subtotal 42\.00 USD, shipping 6\.00 USD, tax 3\.36 USD, total 51\.36 USD$/m,
  );
  expect(stdout).toMatch(/^5\. Confirmed: completed, order ord_\w+$/m);
  expect(stdout).toMatch(/^6\. Order ord_\w+ is placed \(store order ORD-1001\), total 51\.36 USD$/m);
  // The headless store: no catalog, no product page; the offer names its item and the store prices it.
  expect(stdout).toMatch(
    /^7\. Headless store http:\/\/127\.0\.0\.2:\d+: offer ofr_\w+ for item \S+ at 42\.00 USD; checkout chk_\w+ for Cast Iron Teapot, black is ready_to_confirm, total 51\.36 USD$/m,
  );
  expect(stdout).toMatch(/^8\. Confirmed: completed, order ord_\w+ \(store order ORD-1001\)$/m);
  // The card store: the checkout waits for the buyer's card; the card goes to the store's
  // tokenizer, the token to the hosted page, and the order is placed.
  expect(stdout).toMatch(
    /^9\. Card store http:\/\/127\.0\.0\.3:\d+: checkout chk_\w+ is requires_user_action, next: card_payment$/m,
  );
  expect(stdout).toMatch(
    /^10\. The buyer paid on the hosted page \(Order placed\): completed, order ord_\w+ \(store order ORD-1001\)$/m,
  );
  expect(stdout).toMatch(/^Done: the stores placed 3 order\(s\)\.$/m);
});

it('asks for a live key when none is set', async () => {
  const error = await run(process.execPath, [script], { env: env({ SERVICE_API_URL: listening.url }) }).catch(
    (e: { code: number; stderr: string }) => e,
  );
  expect(error).toMatchObject({ code: 1 });
  expect((error as { stderr: string }).stderr).toMatch(/keys create --service commerce --env live/);
});
