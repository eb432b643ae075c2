// CI runs the example as a user would: `tsx live.mjs` as a separate process. It starts the
// platform fakes and the content service itself, so the test only reads the story it prints.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestEngineDatabase } from '@svc/server/testing';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const dir = join(import.meta.dirname, '..');
const tsx = join(dir, 'node_modules', '.bin', 'tsx');

it('connects four platforms, publishes the approved plan at its slots and reads metrics back, with no contract violation', async () => {
  // SQLite in the example's data directory, or a fresh PostgreSQL database when SVC_TEST_DATABASE=postgres.
  const database = await createTestEngineDatabase();
  const { stdout, stderr } = await run(tsx, [join(dir, 'live.mjs')], {
    cwd: dir,
    env: { ...process.env, LOG_LEVEL: '', ...database.env },
  }).finally(() => database.drop());
  expect(stderr).toBe('');
  // The configuration printed is the one a user sets for the real platforms.
  for (const name of [
    'SERVICE_MODE=live',
    'SERVICE_MODEL=real',
    'SERVICE_MODEL_BASE_URL=http://127.0.0.1:',
    'SERVICE_MEDIA_ALLOW_PRIVATE=1',
    ...['X', 'LINKEDIN', 'INSTAGRAM', 'THREADS'].flatMap((p) =>
      ['CLIENT_ID', 'CLIENT_SECRET', 'API_URL', 'AUTH_URL'].map((s) => `SERVICE_${p}_${s}=`),
    ),
  ])
    expect(stdout).toContain(name);
  expect(stdout).toMatch(/SERVICE_SECRET_KEY=<32 random bytes/);
  expect(stdout).toContain('(live · real)');
  for (const p of ['x', 'linkedin', 'instagram', 'threads'])
    expect(stdout).toMatch(new RegExp(`^ {6}${p}: \\S+ \\(.+\\) is connected$`, 'm'));
  expect(stdout).toMatch(/weekly_plan succeeded with the real-model adapter: read_last_week -> /);
  expect(stdout).toContain('a real server publishes when the slot comes');
  // Each post is out, with the platform's own permalink.
  for (const permalink of [
    /x: published at \S+: https:\/\/x\.com\/fieldnote\/status\/\d+$/m,
    /linkedin: published at \S+: https:\/\/www\.linkedin\.com\/feed\/update\/urn:li:share:\d+\/$/m,
    /instagram: published at \S+: https:\/\/www\.instagram\.com\/p\/\d+\/$/m,
    /threads: published at \S+: https:\/\/www\.threads\.com\/p\/\d+\/$/m,
  ])
    expect(stdout).toMatch(permalink);
  // Metrics and replies came back from the platforms, and X's post is judged against its median.
  expect(stdout).toMatch(
    /x: [1-9]\d* impressions, [1-9]\d* engagements over 7 snapshots; 1 reply \(@maya: question\); verdict: outperforming$/m,
  );
  for (const p of ['instagram', 'threads'])
    expect(stdout).toMatch(new RegExp(`${p}: [1-9]\\d* impressions, .* 1 reply .*; verdict: \\w+$`, 'm'));
  expect(stdout.trimEnd().split('\n').at(-1)).toBe(
    'Every request followed the platforms’ published contracts: 0 violations.',
  );
});
