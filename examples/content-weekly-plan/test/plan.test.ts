// CI runs the example as a user would: a real server on a temporary data directory, and the
// script as a separate Node process pointed at it through SERVICE_API_URL.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createContentApp,
  type Listening,
  listen,
  ManualClock,
  randomIds,
  silentLogger,
  testConfig,
} from '@svc/server';
import { createTestEngineDatabase, type TestEngineDatabase } from '@svc/server/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

const run = promisify(execFile);
const script = join(import.meta.dirname, '..', 'plan.mjs');
let listening: Listening;
let dataDir: string;
// SQLite in dataDir, or a fresh PostgreSQL database when SVC_TEST_DATABASE=postgres.
let database: TestEngineDatabase;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-example-plan-'));
  database = await createTestEngineDatabase();
  const deps = {
    config: testConfig({ dataDir, ...database.config }),
    clock: new ManualClock(),
    ids: randomIds,
    logger: silentLogger(),
  };
  listening = await listen(await createContentApp(deps), '127.0.0.1', 0);
});

afterAll(async () => {
  await listening?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

it('plans a week and prints a readable summary ending in a live post with a verdict', async () => {
  const { stdout, stderr } = await run(process.execPath, [script], {
    env: { ...process.env, SERVICE_API_URL: listening.url },
  });
  expect(stderr).toBe('');
  expect(stdout).toContain('(sandbox · simulated)');
  for (let n = 1; n <= 10; n++) expect(stdout).toMatch(new RegExp(`^ ?${n}\\. `, 'm'));
  expect(stdout).toMatch(/weekly_plan succeeded: read_last_week -> find_open_slots/);
  expect(stdout).toMatch(/is published at https:\/\/sandbox\.svc\.local\//);
  expect(stdout).toMatch(
    /^Done: brand brd_\w+, post post_\w+, verdict (outperforming|on_par|underperforming)\.$/m,
  );
});

it('says clearly when the service is not running', async () => {
  const error = await run(process.execPath, [script], {
    env: { ...process.env, SERVICE_API_URL: 'http://127.0.0.1:9' },
  }).catch((e: { code: number; stderr: string }) => e);
  expect(error).toMatchObject({ code: 1 });
  expect((error as { stderr: string }).stderr).toMatch(
    /Cannot reach the content service at http:\/\/127\.0\.0\.1:9/,
  );
});
