#!/usr/bin/env node
// The README's two commands, `npm start` and `npm test`, must work on a machine that has only
// Node.js and npm. This script installs the workspace with pnpm 10 (through npx when pnpm is
// not on the PATH), builds what the command needs, and then runs it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [command, ...rest] = process.argv.slice(2);

function pnpmCommand() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell: process.platform === 'win32' });
  if (probe.status === 0 && /^10\./.test(probe.stdout.trim())) return ['pnpm'];
  return ['npx', '--yes', 'pnpm@10'];
}

function run(cmd, args, opts = {}) {
  const result = spawnSync(cmd, args, {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
    ...opts,
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function ensureInstalled(pnpm) {
  const marker = join(root, 'node_modules', '.modules.yaml');
  const lock = join(root, 'pnpm-lock.yaml');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  process.stderr.write('Installing dependencies (first run compiles better-sqlite3; about a minute)...\n');
  run(pnpm[0], [...pnpm.slice(1), 'install', '--frozen-lockfile']);
}

const pnpm = pnpmCommand();
ensureInstalled(pnpm);

if (command === 'start') {
  run(pnpm[0], [...pnpm.slice(1), '--filter', '@svc/server...', 'run', 'build'], {
    stdio: ['inherit', 'ignore', 'inherit'],
  });
  const child = spawn(process.execPath, [join(root, 'packages/server/dist/cli.js'), 'start', ...rest], {
    cwd: root,
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else if (command === 'test') {
  run(pnpm[0], [...pnpm.slice(1), 'run', 'build']);
  const report = join(mkdtempSync(join(tmpdir(), 'svc-test-')), 'report.json');
  const result = spawnSync(
    join(root, 'node_modules/.bin/vitest'),
    ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...rest],
    { cwd: root, stdio: 'inherit' },
  );
  // One plain closing line that any CI can read, whatever the runner prints above it.
  if (existsSync(report)) {
    const r = JSON.parse(readFileSync(report, 'utf8'));
    const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    process.stdout.write(
      `\nTests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
    );
  }
  process.exit(result.status ?? 1);
} else {
  process.stderr.write('usage: node scripts/run.mjs start|test\n');
  process.exit(64);
}
