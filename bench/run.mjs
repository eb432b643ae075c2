#!/usr/bin/env node
// `pnpm bench`: runs every case in bench/cases/ and prints one Markdown table. Each case
// measures the real server beside a bare baseline doing the same work, in the same run, so read
// the ratios. `pnpm bench commerce` runs only the cases whose file name starts with `commerce`.
import { readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CONNECTIONS, coresNote, DURATION, ENGINES, pinSelf, ROUNDS, requireWrk, useEngine } from './lib.mjs';

requireWrk();
pinSelf();
const only = process.argv[2];
const dir = join(import.meta.dirname, 'cases');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && (!only || f.startsWith(only)))
  .sort();

const engineNames = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
const engines = ENGINES.map((e) => engineNames[e] ?? e).join(' and ');
console.log(
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString()}, svc on ${engines}, load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log(`${coresNote}`);
console.log(
  `wrk -t1 -c${CONNECTIONS}, ${DURATION} s per measurement after 1 s warm-up, ${ROUNDS} interleaved rounds (best kept), loopback, access log on\n`,
);
console.log('| what | req/s | p50 ms | p99 ms | server CPU µs/req (ratio) | ratio | goal |');
console.log('|---|---:|---:|---:|---:|---:|---|');
// Each case on each engine, the engines' rows side by side; the load average after each case.
for (const file of cases) {
  const { default: bench } = await import(join(dir, file));
  for (const e of ENGINES) {
    useEngine(e);
    const label = ENGINES.length > 1 ? `${engineNames[e]}: ` : '';
    for (const line of await bench()) console.log(line.replace(/^\| /, `| ${label}`));
  }
  console.log(
    `| (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}) | | | | | | |`,
  );
}
