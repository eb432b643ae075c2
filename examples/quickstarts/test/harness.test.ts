// The harness itself: what it runs, what it skips, and that a broken doc fails.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runDoc } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-quickstart-harness-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fence = '```';
const doc = (name: string, ...lines: string[]) => {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
};

it('writes files, runs sh blocks in order with their exports, skips npm and reading-only blocks', async () => {
  const path = doc(
    'ok.md',
    `${fence}js file=hello.mjs`,
    "import { ContentClient } from '@svc/content-client';",
    "console.log('hello', typeof ContentClient, process.env.GREETING);",
    fence,
    `${fence}sh npm`,
    'exit 1',
    fence,
    `${fence}sh`,
    'export GREETING=$(echo from-a-block)',
    fence,
    `${fence}ts`,
    'this is not run',
    fence,
    `${fence}sh`,
    'node hello.mjs',
    fence,
    `${fence}text output`,
    'hello function ...',
    fence,
    `${fence}sh clone`,
    'test -f pnpm-workspace.yaml && echo at-the-root',
    fence,
  );
  const { ran, files } = await runDoc(path);
  expect(files).toEqual(['hello.mjs']);
  expect(ran.map((r) => r.stdout)).toEqual(['', 'hello function from-a-block\n', 'at-the-root\n']);
});

it('fails on a block that exits non-zero, naming its line', async () => {
  const path = doc(
    'broken.md',
    '# Broken',
    '',
    `${fence}sh`,
    'echo one',
    'node does-not-exist.mjs',
    'echo two',
    fence,
  );
  await expect(runDoc(path)).rejects.toThrow(/broken\.md:3 .* failed \(1\)[\s\S]*Cannot find module/);
});

it('fails when the output shown is not what the block printed', async () => {
  const path = doc(
    'output.md',
    `${fence}sh`,
    'echo "order ord_1: placed"',
    fence,
    `${fence}text output`,
    'order ord_...: cancelled',
    fence,
  );
  await expect(runDoc(path)).rejects.toThrow(/the doc shows "order ord_\.\.\.: cancelled"/);
});

it('keeps background blocks running until the end, and fails if one dies early', async () => {
  const ok = doc(
    'bg.md',
    `${fence}sh background ready=up`,
    'echo up',
    'sleep 30',
    fence,
    `${fence}sh`,
    'echo after',
    fence,
  );
  const { stopped } = await runDoc(ok);
  expect(stopped.map((s) => [s.stdout, s.signal])).toEqual([['up\n', 'SIGTERM']]);

  const dies = doc(
    'dies.md',
    `${fence}sh background ready=up`,
    'echo up',
    'exit 3',
    fence,
    `${fence}sh`,
    'sleep 1',
    fence,
  );
  await expect(runDoc(dies)).rejects.toThrow(/dies\.md:1 .* had exited \(3\) before the end/);
});
