import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../lib.mjs';

/** Milliseconds from spawning `svc-server start` until both services answer `/health`. */
async function coldStart(dataDir) {
  const server = await startServer({}, { dataDir });
  for (const base of [server.content, server.commerce]) {
    for (;;) {
      const res = await fetch(`${base}/v1/health`).catch(() => null);
      if (res?.ok) break;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const ms = Number(process.hrtime.bigint() - server.started) / 1e6;
  await server.stop();
  return ms;
}

/** Cold start of both services: on an empty data directory (migrations, demo seed) and on an existing one. */
export default async function startBench() {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'svc-bench-start-')), '.data');
  try {
    const fresh = await coldStart(dataDir);
    const again = [];
    for (let i = 0; i < 3; i++) again.push(await coldStart(dataDir));
    again.sort((a, b) => a - b);
    const line = (name, ms) => `| ${name} | | ${ms.toFixed(0)} ms | | | ≤ 1000 ms |`;
    return [
      line('cold start to both `/health`, empty data directory (migrate, seed the demo)', fresh),
      line('cold start to both `/health`, existing data (median of 3)', again[1]),
    ];
  } finally {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  }
}
