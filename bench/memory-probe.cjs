// Preloaded into the server by bench/rss-breakdown.mjs (`node --require`): on SIGUSR2 it writes
// what the process's memory is made of to $SVC_MEMORY_PROBE_DIR/probe-<n>.json and, once a file
// named `snapshot` is in that directory, a heap snapshot beside it. Writing a snapshot leaves
// ~100 MB of malloc'd memory resident (glibc keeps it), so take one only at the last point.
const { existsSync, readFileSync, readdirSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const v8 = require('node:v8');

const dir = process.env.SVC_MEMORY_PROBE_DIR;
let n = 0;

/** /proc/self/smaps_rollup in MB: what is resident, and how much of it is backed by a file. */
function rollup() {
  const out = {};
  for (const line of readFileSync('/proc/self/smaps_rollup', 'utf8').split('\n')) {
    const m = /^(\w+):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]] = Number(m[2]) / 1024;
  }
  return out;
}

/** Resident MB per kind of mapping: the node binary, other files (SQLite's -shm, libraries), anonymous. */
function byMapping() {
  const out = {};
  let name = '';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const path = head[1];
      name = path === '' ? '(anonymous)' : path.startsWith('/') ? path.replace(/^.*\//, '') : path;
      continue;
    }
    const m = /^Rss:\s+(\d+) kB/.exec(line);
    if (m) out[name] = (out[name] ?? 0) + Number(m[1]) / 1024;
  }
  return Object.fromEntries(
    Object.entries(out)
      .filter(([, mb]) => mb >= 0.5)
      .sort((a, b) => b[1] - a[1]),
  );
}

const mb = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v / 1048576]));

process.on('SIGUSR2', () => {
  n += 1;
  const before = mb(process.memoryUsage());
  const rollupBefore = rollup();
  globalThis.gc?.();
  const probe = {
    before,
    rollupBefore,
    afterGc: mb(process.memoryUsage()),
    rollup: rollup(),
    mappings: byMapping(),
    spaces: Object.fromEntries(
      v8
        .getHeapSpaceStatistics()
        .map((s) => [
          s.space_name,
          { committed: s.physical_space_size / 1048576, used: s.space_used_size / 1048576 },
        ]),
    ),
    heap: mb(v8.getHeapStatistics()),
    threads: readdirSync('/proc/self/task').length,
  };
  if (existsSync(join(dir, 'snapshot')))
    probe.snapshot = v8.writeHeapSnapshot(join(dir, `heap-${n}.heapsnapshot`));
  writeFileSync(join(dir, `probe-${n}.json`), JSON.stringify(probe, null, 1));
});
