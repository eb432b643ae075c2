#!/usr/bin/env node
// What the server's RSS is made of in the scale case: runs bench/cases/scale.mjs with a memory
// probe preloaded (bench/memory-probe.cjs) and, at each of its three points (idle, after the reads
// at 10k rows, after the reads at 1M), reads the probe's figures before and after a full GC,
// resident memory by mapping. At the last point it first reads the RSS over
// BENCH_SETTLE_SECONDS (30) of idling, and (BENCH_HEAP_SNAPSHOT=1) takes a heap snapshot,
// summarised by what holds the most. Counts and sizes, not timings: a busy machine leaves them as they are.
// `node bench/rss-breakdown.mjs` (BENCH_SCALE_ROWS, BENCH_ENGINES as for `run.mjs scale`).
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import scaleBench from './cases/scale.mjs';
import { ENGINES, useEngine } from './lib.mjs';

const dir = mkdtempSync(join(tmpdir(), 'svc-rss-'));
const f = (x) => (x ?? 0).toFixed(1);
const signal = async (pid, n) => {
  process.kill(pid, 'SIGUSR2');
  const file = join(dir, `probe-${n}.json`);
  while (!existsSync(file)) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 200));
  return JSON.parse(readFileSync(file, 'utf8'));
};

/** Self size by constructor or kind, over every node of a heap snapshot, largest first. */
function summarise(path, top = 15) {
  const snap = JSON.parse(readFileSync(path, 'utf8'));
  const {
    node_fields: fields,
    node_types: [types],
  } = snap.snapshot.meta;
  const [T, N, S] = ['type', 'name', 'self_size'].map((x) => fields.indexOf(x));
  const by = new Map();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + T]];
    const key =
      type === 'object' || type === 'native' ? `${type} ${snap.strings[snap.nodes[i + N]]}` : `(${type})`;
    const e = by.get(key) ?? { count: 0, bytes: 0 };
    e.count += 1;
    e.bytes += snap.nodes[i + S];
    by.set(key, e);
  }
  // better-sqlite3's prepared statements: each holds native memory the snapshot does not show.
  const named = [...by].filter(([key]) => key === 'object Statement');
  return [...[...by].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top), ...named];
}

const SETTLE_S = Number(process.env.BENCH_SETTLE_SECONDS ?? 30);

function report(point, p) {
  const r = p.rollup;
  console.log(
    `\n### ${point}: RSS ${f(p.rollupBefore.Rss)} MB before GC, ${f(r.Rss)} after (threads ${p.threads})`,
  );
  console.log(`file-backed ${f(r.Rss - r.Anonymous)} MB, anonymous ${f(r.Anonymous)} MB`);
  console.log(
    `V8 heap total/used before GC ${f(p.before.heapTotal)}/${f(p.before.heapUsed)}, after ${f(p.afterGc.heapTotal)}/${f(p.afterGc.heapUsed)}; external ${f(p.afterGc.external)}, array buffers ${f(p.afterGc.arrayBuffers)}`,
  );
  console.log(
    `spaces (committed/used): ${Object.entries(p.spaces)
      .map(([s, v]) => `${s} ${f(v.committed)}/${f(v.used)}`)
      .join(', ')}`,
  );
  console.log(
    `mappings (RSS MB): ${Object.entries(p.mappings)
      .map(([m, v]) => `${m} ${f(v)}`)
      .join(', ')}`,
  );
  if (p.snapshot) {
    for (const [key, e] of summarise(p.snapshot))
      console.log(`  ${(e.bytes / 1048576).toFixed(2)} MB  ${e.count}  ${key}`);
  }
}

let n = 0;
for (const engine of ENGINES) {
  useEngine(engine);
  console.log(`\n## ${engine}`);
  await scaleBench({
    env: { SVC_MEMORY_PROBE_DIR: dir },
    nodeArgs: ['--expose-gc', '--require', join(import.meta.dirname, 'memory-probe.cjs')],
    at: async (point, server) => {
      if (point !== 'idle' && point !== '10k') {
        // First what idling does on its own (V8's memory reducer starts once the load stops), read
        // from outside so no forced GC comes first; the probe last, with the snapshot: writing one
        // leaves its malloc'd memory resident.
        const rss = () =>
          f(
            Number(/^Rss:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/smaps_rollup`, 'utf8'))[1]) / 1024,
          );
        const now = rss();
        await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
        console.log(`\n${point}: RSS right after the reads ${now} MB, ${SETTLE_S} s later ${rss()} MB`);
        if (process.env.BENCH_HEAP_SNAPSHOT) writeFileSync(join(dir, 'snapshot'), '');
      }
      report(point, await signal(server.pid, ++n));
    },
  });
}
rmSync(dir, { recursive: true, force: true });
