import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuMs, currentEngine, freshPostgres, startServer } from '../lib.mjs';

/**
 * `BENCH_START_BASE=/path/to/old/packages/server/dist/cli.js` runs that build beside this one,
 * interleaved (old, new, old, new), each on its own fresh data, so an A/B of a start is taken in
 * one run on one machine: under load only such pairs mean anything. The old build's folder needs
 * the same node_modules (a copy of dist/ beside a symlink to packages/server/node_modules).
 */
const BASE = process.env.BENCH_START_BASE ? resolve(process.env.BENCH_START_BASE) : null;
const ROUNDS = Number(process.env.BENCH_START_ROUNDS ?? (BASE ? 2 : 1));

async function answered(url) {
  for (let tries = 0; ; tries++) {
    const res = await fetch(url).catch(() => null);
    if (res?.ok) return;
    if (tries > 2000) throw new Error(`${url} did not answer 200`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Milliseconds from spawning `svc-server start` until both services answer `/health`, the server's
 * CPU to that point, and the time until the content API itself answers (`GET /v1/brands`, which
 * waits for a first start's demo seed where `/health` does not).
 */
async function coldStart(dataDir, databaseUrl, cli) {
  const server = await startServer({}, { dataDir, databaseUrl, ...(cli ? { cli } : {}) });
  // Content answers at /health, commerce at /v1/health.
  for (const url of [`${server.content}/health`, `${server.commerce}/v1/health`]) await answered(url);
  const ms = Number(process.hrtime.bigint() - server.started) / 1e6;
  const cpu = cpuMs(server.pid);
  await answered(`${server.content}/v1/brands`);
  const apiMs = Number(process.hrtime.bigint() - server.started) / 1e6;
  await server.stop();
  return { ms, cpu, apiMs };
}

/** One build's starts: on an empty data directory (migrations, demo seed), then three on it. */
async function starts(cli) {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-bench-start-')), '.data');
  // On PostgreSQL one database for all four starts, so the later ones find existing data.
  const pg = currentEngine() === 'postgres' ? await freshPostgres() : null;
  try {
    const fresh = await coldStart(dataDir, pg?.url, cli);
    const again = [];
    for (let i = 0; i < 3; i++) again.push(await coldStart(dataDir, pg?.url, cli));
    again.sort((a, b) => a.ms - b.ms);
    return { fresh, again: again[1] };
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
    await pg?.drop();
  }
}

/** Cold start of both services: on an empty data directory (migrations, demo seed) and on an existing one. */
export default async function startBench() {
  const builds = BASE
    ? [
        ['old build: ', BASE],
        ['', null],
      ]
    : [['', null]];
  const results = builds.map(() => []);
  for (let round = 0; round < ROUNDS; round++)
    for (const [i, [, cli]] of builds.entries()) results[i].push(await starts(cli));
  // The p50 column holds the wall time; the CPU column the server's CPU time to that point.
  const line = (name, r) =>
    `| ${name} | | ${r.ms.toFixed(0)} ms | | ${r.cpu.toFixed(0)} ms CPU | | ≤ 1000 ms |`;
  const rows = [];
  for (const [i, [label]] of builds.entries())
    for (const r of results[i]) {
      rows.push(
        line(
          `${label}cold start to both \`/health\`, empty data directory (migrate, seed the demo)`,
          r.fresh,
        ),
        `| ${label}the same start, until the content API answers (\`GET /v1/brands\`: after the demo seed) | | ${r.fresh.apiMs.toFixed(0)} ms | | | | |`,
        line(`${label}cold start to both \`/health\`, existing data (median of 3)`, r.again),
      );
    }
  return rows;
}
