#!/usr/bin/env node
// `pnpm bench`: runs every case in bench/cases/ and prints one Markdown table. Each case
// measures the real server beside a bare baseline doing the same work, so read the ratios.
import { readdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

const only = process.argv[2];
const dir = join(import.meta.dirname, 'cases');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && (!only || f.startsWith(only)))
  .sort();

console.log(
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString()}`,
);
console.log(`${process.env.BENCH_SECONDS ?? 5} s per measurement, 10 connections, loopback\n`);
console.log('| what | req/s | p50 ms | p99 ms | vs baseline |');
console.log('|---|---:|---:|---:|---:|');
for (const file of cases) {
  const { default: bench } = await import(join(dir, file));
  for (const line of await bench()) console.log(line);
}
