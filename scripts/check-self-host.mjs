#!/usr/bin/env node
// Self-hosting from the published shape: pack @svc/server and the workspace packages it
// depends on, install the tarballs into an empty folder with plain npm, run `npx svc-server
// start` there (migrations included), and check both services answer.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'svc-self-host-'));
const tarballs = join(work, 'tarballs');
const app = join(work, 'app');

function sh(cmd, args, cwd) {
  const res = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${res.status})`);
  return res.stdout;
}

function workspaceDeps(name, seen = new Set()) {
  if (seen.has(name)) return seen;
  seen.add(name);
  const dir = readdirSync(join(root, 'packages')).find((d) => {
    try {
      return JSON.parse(readFileSync(join(root, 'packages', d, 'package.json'), 'utf8')).name === name;
    } catch {
      return false;
    }
  });
  const pkg = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
  for (const [dep, range] of Object.entries(pkg.dependencies ?? {})) {
    if (String(range).startsWith('workspace:')) workspaceDeps(dep, seen);
  }
  return seen;
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

try {
  const names = [...workspaceDeps('@svc/server')];
  console.log(`packing ${names.join(', ')}`);
  for (const name of names) sh('pnpm', ['--filter', name, 'pack', '--pack-destination', tarballs], root);
  const files = readdirSync(tarballs).map((f) => join(tarballs, f));

  sh('mkdir', ['-p', app], work);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'self-host-check', private: true }));
  console.log('npm install (compiles better-sqlite3)...');
  sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], app);

  const env = {
    ...process.env,
    SERVICE_DATA_DIR: join(work, 'data'),
    CONTENT_PORT: '0',
    COMMERCE_PORT: '0',
    LOG_LEVEL: 'warn',
  };
  // Its own process group, so the SIGTERM below reaches svc-server itself and not only npx.
  const child = spawn('npx', ['--no-install', 'svc-server', 'start'], {
    cwd: app,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const urls = await new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`svc-server did not print its URLs in time:\n${out}`)),
      30_000,
    );
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const content = /^content\s+(\S+)/m.exec(out)?.[1];
      const commerce = /^commerce\s+(\S+)/m.exec(out)?.[1];
      if (content && commerce && /^data\s/m.test(out)) {
        clearTimeout(timer);
        resolve({ content, commerce });
      }
    });
    child.on('exit', (code) => reject(new Error(`svc-server exited early (${code}):\n${out}`)));
  });
  for (const url of [
    `${urls.content}/health`,
    `${urls.commerce}/v1/health`,
    `${urls.commerce}/v1/openapi.json`,
    // The API reference and its renderer come from the installed package, not a CDN.
    `${urls.content}/docs`,
    `${urls.commerce}/docs`,
    `${urls.commerce}/docs/redoc.standalone.js`,
  ]) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    console.log(`ok  ${url}`);
  }
  process.kill(-child.pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (groupAlive(child.pid)) {
    if (Date.now() > deadline) {
      process.kill(-child.pid, 'SIGKILL');
      throw new Error('svc-server did not exit within 15 s of SIGTERM');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log('self-host check passed: installed from tarballs, started, answered, and stopped cleanly');
} finally {
  rmSync(work, { recursive: true, force: true });
}
