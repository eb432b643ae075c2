// Shared bench plumbing: start the real server in its own process on a temporary data
// directory, start a bare express baseline in another, and load both with autocannon from
// this process. Ratios, not absolute figures, are what hold on a noisy machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

export const root = join(import.meta.dirname, '..');
const cli = join(root, 'packages/server/dist/cli.js');

function waitForLines(child, patterns, label) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${label} did not start:\n${out}`)), 30_000);
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const found = patterns.map((p) => p.exec(out)?.[1]);
      if (found.every(Boolean)) {
        clearTimeout(timer);
        resolve(found);
      }
    });
    child.once('exit', (code) => reject(new Error(`${label} exited (${code}):\n${out}`)));
  });
}

/** The real svc-server, both services, on a fresh data directory. */
export async function startServer(env = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const fullEnv = {
    ...process.env,
    SERVICE_DATA_DIR: dataDir,
    CONTENT_PORT: '0',
    COMMERCE_PORT: '0',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ...env,
  };
  const child = spawn(process.execPath, [cli, 'start'], {
    env: fullEnv,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [content, commerce] = await waitForLines(
    child,
    [/^content\s+(\S+)/m, /^commerce\s+(\S+)/m],
    'svc-server',
  );
  return {
    content,
    commerce,
    dataDir,
    env: fullEnv,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A bare express app from bench/baseline-server.mjs, serving `routes` over the given SQLite file. */
export async function startBaseline(dbFile) {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'baseline-server.mjs'), dbFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [url] = await waitForLines(child, [/^baseline\s+(\S+)/m], 'baseline');
  return {
    url,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function keyFor(env, args) {
  const child = spawn(process.execPath, [cli, 'keys', 'create', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  await new Promise((r) => child.once('exit', r));
  return out.trim();
}

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);

/** Loads one URL; a short warm-up first so JIT and statement caches are hot. */
export async function measure({ url, method = 'GET', headers = {}, body }) {
  const opts = { url, method, headers, body, connections: 10, pipelining: 1 };
  await autocannon({ ...opts, duration: 1 });
  const r = await autocannon({ ...opts, duration: DURATION });
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${method} ${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

export function row(name, result, baseline) {
  const ratio = baseline ? `${(result.rps / baseline.rps).toFixed(2)}×` : '';
  return `| ${name} | ${Math.round(result.rps)} | ${result.p50} | ${result.p99} | ${ratio} |`;
}
