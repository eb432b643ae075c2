// CI runs the agent as a user would: a real content service (with the demo brand) on a
// temporary data directory, and agent.mjs as a separate process pointed at it.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ContentClient } from '@svc/content-client';
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
const script = join(import.meta.dirname, '..', 'agent.mjs');
let listening: Listening;
let dataDir: string;
// SQLite in dataDir, or a fresh PostgreSQL database when SVC_TEST_DATABASE=postgres.
let database: TestEngineDatabase;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-example-agent-'));
  database = await createTestEngineDatabase();
  const deps = {
    config: testConfig({ dataDir, ...database.config, seed: 'demo' }),
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

it('lists the tools, suggests, drafts and proposes; the post waits for a person', async () => {
  const { stdout, stderr } = await run(process.execPath, [script], {
    env: { ...process.env, SERVICE_API_URL: listening.url, SERVICE_API_KEY: '' },
  });
  expect(stderr).toBe('');
  expect(stdout).toMatch(/^23 tools$/m);
  expect(stdout).toContain('(sandbox · simulated)');
  expect(stdout).toMatch(/^Drafted drf_\w+ for linkedin/m);
  const approvalId = stdout.match(/Proposed: approval (apr_\w+) .* status pending/)?.[1];
  expect(approvalId).toBeTruthy();
  expect(stdout).toContain('It waits for a person: no tool can approve, publish, schedule or delete.');

  // The person's side: the approval is pending until someone approves it over REST.
  const rest = new ContentClient({ baseUrl: `${listening.url}/v1` });
  expect((await rest.approvals.retrieve(approvalId as string)).status).toBe('pending');
  expect((await rest.posts.list({ status: 'scheduled' })).posts.map((p) => p.id)).toHaveLength(0);
});

it('says clearly when the service is not running', async () => {
  const error = await run(process.execPath, [script], {
    env: { ...process.env, SERVICE_API_URL: 'http://127.0.0.1:9', SERVICE_API_KEY: 'svc_x' },
  }).catch((e: { code: number; stderr: string }) => e);
  expect(error).toMatchObject({ code: 1 });
  expect((error as { stderr: string }).stderr).toMatch(/Cannot reach http:\/\/127\.0\.0\.1:9/);
});
