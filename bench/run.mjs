#!/usr/bin/env node
// `pnpm bench`: runs every case in bench/cases/ and prints one Markdown table. Each case
// measures the real server beside a bare baseline doing the same work, in the same run, so read
// the ratios. `pnpm bench commerce` runs only the cases whose file name starts with `commerce`.
import { readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CONNECTIONS, coresNote, DURATION, pinSelf, ROUNDS, requireWrk } from './lib.mjs';

requireWrk();
pinSelf();
const only = process.argv[2];
const dir = join(import.meta.dirname, 'cases');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && (!only || f.startsWith(only)))
  .sort();

const engine = process.env.SERVICE_DATABASE_URL ? 'PostgreSQL (SERVICE_DATABASE_URL)' : 'SQLite';
console.log(
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString()}, svc on ${engine}`,
);
console.log(`${coresNote}`);
console.log(
  `wrk -t1 -c${CONNECTIONS}, ${DURATION} s per measurement after 1 s warm-up, ${ROUNDS} interleaved rounds (best kept), loopback, access log on\n`,
);
console.log('| what | req/s | p50 ms | p99 ms | server CPU µs/req (ratio) | ratio | goal |');
console.log('|---|---:|---:|---:|---:|---:|---|');
for (const file of cases) {
  const { default: bench } = await import(join(dir, file));
  for (const line of await bench()) console.log(line);
}
