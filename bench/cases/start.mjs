import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMs, currentEngine, freshPostgres, startServer } from '../lib.mjs';

/** Milliseconds from spawning `svc-server start` until both services answer `/health`. */
async function coldStart(dataDir, databaseUrl) {
  const server = await startServer({}, { dataDir, databaseUrl });
  // Content answers at /health, commerce at /v1/health.
  for (const url of [`${server.content}/health`, `${server.commerce}/v1/health`]) {
    for (let tries = 0; ; tries++) {
      const res = await fetch(url).catch(() => null);
      if (res?.ok) break;
      if (tries > 2000) throw new Error(`${url} did not answer 200`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const ms = Number(process.hrtime.bigint() - server.started) / 1e6;
  const cpu = cpuMs(server.pid);
  await server.stop();
  return { ms, cpu };
}

/** Cold start of both services: on an empty data directory (migrations, demo seed) and on an existing one. */
export default async function startBench() {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-bench-start-')), '.data');
  // On PostgreSQL one database for all four starts, so the later ones find existing data.
  const pg = currentEngine() === 'postgres' ? await freshPostgres() : null;
  try {
    const fresh = await coldStart(dataDir, pg?.url);
    const again = [];
    for (let i = 0; i < 3; i++) again.push(await coldStart(dataDir, pg?.url));
    again.sort((a, b) => a.ms - b.ms);
    // The p50 column holds the wall time; the CPU column the server's CPU time to that point.
    const line = (name, r) =>
      `| ${name} | | ${r.ms.toFixed(0)} ms | | ${r.cpu.toFixed(0)} ms CPU | | ≤ 1000 ms |`;
    return [
      line('cold start to both `/health`, empty data directory (migrate, seed the demo)', fresh),
      line('cold start to both `/health`, existing data (median of 3)', again[1]),
    ];
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
    await pg?.drop();
  }
}
