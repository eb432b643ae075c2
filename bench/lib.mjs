// Shared bench plumbing. Servers (svc and the bare baselines) run in their own processes pinned
// to one core; the load generator, `wrk`, is pinned to the other, so it never competes with the
// server it loads. Every case measures its baseline in the same run, interleaved with the real
// server (two rounds: baseline, svc, baseline, svc), and prints the ratio: absolute figures move
// with the machine, ratios much less.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { missingNodeFlags, RELAUNCHED } from '../packages/server/bin/node-flags.js';

export const root = join(import.meta.dirname, '..');
// BENCH_SVC_CLI: another build's cli.js (an old build copied beside dist/, for A/B runs side by side).
const cli = process.env.BENCH_SVC_CLI ?? join(root, 'packages/server/dist/cli.js');

export const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const has = (cmd) => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

/**
 * How the cores are shared: servers on SERVER_CPU, wrk and the bench's own client loops on
 * LOAD_CPU. With one core (or no taskset) nothing is pinned, and the header says so.
 */
const pinning = has('taskset') && availableParallelism() >= 2;
export const SERVER_CPU = process.env.BENCH_SERVER_CPU ?? '0';
export const LOAD_CPU = process.env.BENCH_LOAD_CPU ?? '1';
export const coresNote = pinning
  ? `servers pinned to core ${SERVER_CPU} (taskset), wrk and client loops to core ${LOAD_CPU}`
  : 'NOT pinned (taskset missing or one core): server and load generator share the cores';

/** Runs a command on a core with taskset, when pinning is possible. */
export function pinned(core, cmd, args) {
  return pinning ? ['taskset', ['-c', core, cmd, ...args]] : [cmd, args];
}

/** Pins this bench process itself (it runs the client-side loops) to the load core, or to `core`. */
export function pinSelf(core = LOAD_CPU) {
  if (pinning) execFileSync('taskset', ['-pc', core, String(process.pid)], { stdio: 'ignore' });
}

export function requireWrk() {
  if (!has('wrk'))
    throw new Error(
      "`pnpm bench` needs wrk, the load generator (Debian: 'sudo apt-get install wrk'); autocannon in the same process would be the bottleneck.",
    );
}

function waitForLines(child, patterns, label) {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${label} did not start:\n${out}`)), 60_000);
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

const stopper = (child) => async () => {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
};

/**
 * The engines each case runs on: SQLite, and PostgreSQL beside it when a server URL is given
 * (`SERVICE_DATABASE_URL` or `BENCH_POSTGRES_URL`; each run makes its own database there).
 * `BENCH_ENGINES=postgres` (or `sqlite`) runs one only.
 */
export const POSTGRES_URL = process.env.SERVICE_DATABASE_URL || process.env.BENCH_POSTGRES_URL || '';
export const ENGINES = (process.env.BENCH_ENGINES ?? (POSTGRES_URL ? 'sqlite,postgres' : 'sqlite'))
  .split(',')
  .filter(Boolean);
if (ENGINES.includes('postgres') && !POSTGRES_URL)
  throw new Error('BENCH_ENGINES names postgres: set BENCH_POSTGRES_URL=postgres://user@host:5432/db');
let engine = ENGINES[0];
/** The engine the next startServer runs on (run.mjs runs every case once per engine). */
export const useEngine = (e) => {
  engine = e;
};
export const currentEngine = () => engine;

/**
 * A new, empty PostgreSQL database beside the one `SERVICE_DATABASE_URL` names (created through
 * it), so every case starts from nothing as it does on SQLite's fresh data directory; `drop`
 * removes it.
 */
export async function freshPostgres(base = POSTGRES_URL) {
  const name = `svc_bench_${process.pid}_${Date.now().toString(36)}`;
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: base });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * The real svc-server, both services, on a fresh data directory (or `dataDir`), pinned to the
 * server core. With `SERVICE_DATABASE_URL` set it runs on a fresh PostgreSQL database made beside
 * that one (or `opts.databaseUrl`, kept). The access log stays on (LOG_LEVEL info, to a file).
 * `opts.cli` runs another build's `dist/cli.js` (the start case's A/B against an old build).
 */
export async function startServer(env = {}, opts = {}) {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const fresh = engine === 'postgres' && !opts.databaseUrl ? await freshPostgres() : null;
  const databaseUrl = engine === 'postgres' ? (opts.databaseUrl ?? fresh?.url) : undefined;
  const { SERVICE_DATABASE_URL: _, ...inherited } = process.env;
  const fullEnv = {
    ...inherited,
    ...(databaseUrl ? { SERVICE_DATABASE_URL: databaseUrl } : {}),
    SERVICE_DATA_DIR: dataDir,
    CONTENT_PORT: '0',
    COMMERCE_PORT: '0',
    LOG_LEVEL: 'info',
    NODE_ENV: 'production',
    ...env,
  };
  const started = process.hrtime.bigint();
  // The V8 flags the svc-server bin relaunches node with (packages/server/bin/node-flags.js), so
  // the bench measures the server as users run it; NODE_OPTIONS naming one wins, as in the bin.
  const flags = fullEnv[RELAUNCHED] ? [] : missingNodeFlags(opts.nodeArgs ?? [], fullEnv.NODE_OPTIONS);
  const [cmd, args] = pinned(SERVER_CPU, process.execPath, [
    ...flags,
    ...(opts.nodeArgs ?? []),
    opts.cli ?? cli,
    'start',
  ]);
  const child = spawn(cmd, args, { env: fullEnv, stdio: ['ignore', 'pipe', opts.stderr ?? 'ignore'] });
  const [content, commerce] = await waitForLines(
    child,
    [/^content\s+(\S+)/m, /^commerce\s+(\S+)/m],
    'svc-server',
  );
  return {
    content,
    commerce,
    dataDir,
    databaseUrl,
    env: fullEnv,
    started,
    child,
    pid: child.pid,
    async stop({ keep = false } = {}) {
      await stopper(child)();
      if (!keep && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
      if (!keep) await fresh?.drop();
    },
  };
}

/**
 * A bare baseline from bench/baseline-server.mjs (`flavour` 'node' for node:http, 'express' for
 * express 5) over `server`'s data: its SQLite files, or its PostgreSQL database with `pg`. Pinned
 * to the server core.
 */
export async function startBaseline(flavour, server) {
  const [cmd, args] = pinned(SERVER_CPU, process.execPath, [
    join(import.meta.dirname, 'baseline-server.mjs'),
    flavour,
    server.dataDir,
  ]);
  const env = { ...process.env, BASELINE_DATABASE_URL: server.databaseUrl ?? '' };
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const [url] = await waitForLines(child, [/^baseline\s+(\S+)/m], 'baseline');
  return { url, pid: child.pid, stop: stopper(child) };
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

/** MCP `tools/call` of `name` with `args` as `key`: a wrk target, or a fetch init with its url. */
export const mcpToolCall = (base, key, name, args) => ({
  url: `${base}/mcp`,
  method: 'POST',
  headers: {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
});

/** A wrk Lua script that sends `method`, `headers` and `body` on every request. */
function luaScript({ method = 'GET', headers = {}, body }) {
  const lines = [`wrk.method = ${JSON.stringify(method)}`];
  for (const [k, v] of Object.entries(headers))
    lines.push(`wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`);
  if (body !== undefined) lines.push(`wrk.body = ${JSON.stringify(body)}`);
  const file = join(mkdtempSync(join(tmpdir(), 'svc-wrk-')), 'req.lua');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/**
 * CPU time the process has used, in milliseconds (utime + stime from /proc, Linux). CPU time per
 * request holds up on a machine shared with other work far better than requests per second do.
 */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  } catch {
    return 100;
  }
})();

const ms = (value, unit) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);

/** One wrk run (1 thread, CONNECTIONS connections) on the load core; refuses any non-2xx answer. */
export function wrk(target, seconds = DURATION) {
  const script = luaScript(target);
  const [cmd, args] = pinned(LOAD_CPU, 'wrk', [
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--latency',
    '--timeout',
    '30s',
    '-s',
    script,
    target.url,
  ]);
  const cpuBefore = target.pid ? cpuMs(target.pid) : Number.NaN;
  const out = execFileSync(cmd, args, { encoding: 'utf8' });
  const cpu = target.pid ? cpuMs(target.pid) - cpuBefore : Number.NaN;
  rmSync(join(script, '..'), { recursive: true, force: true });
  const bad = /Non-2xx or 3xx responses: (\d+)/.exec(out);
  const errors = /Socket errors: (.*)/.exec(out);
  if (bad || (errors && /timeout [1-9]|read [1-9]|write [1-9]|connect [1-9]/.test(errors[1])))
    throw new Error(
      `${target.method ?? 'GET'} ${target.url}: ${bad?.[0] ?? ''} ${errors?.[0] ?? ''}\n${out}`,
    );
  const pct = (p) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s)`, 'm').exec(out);
    return m ? ms(m[1], m[2]) : Number.NaN;
  };
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN),
    p50: pct(50),
    p99: pct(99),
    cpuUs: (cpu * 1000) / requests,
  };
}

/**
 * Measures every target in `targets` (name → wrk target, or a function returning a result for
 * work wrk cannot drive) in ROUNDS interleaved rounds after a short warm-up, and keeps each one's
 * best round: on a shared machine the best round is the one least disturbed by others. Every
 * round's figures are kept too, in order (`rounds`), for a case that pairs a target with its twin
 * round by round (`pairedRow`). `opts.rounds` and `opts.seconds` override ROUNDS and DURATION;
 * `opts.alternate` runs the targets in reverse order every other round, so neither of a pair is
 * always the one measured second.
 */
export async function interleaved(targets, opts = {}) {
  const { rounds = ROUNDS, seconds = DURATION, alternate = false } = opts;
  const best = {};
  const entries = Object.entries(targets);
  for (const [, t] of entries) if (typeof t !== 'function') wrk(t, 1);
  for (let round = 0; round < rounds; round++) {
    const order = alternate && round % 2 === 1 ? [...entries].reverse() : entries;
    for (const [name, t] of order) {
      const r = typeof t === 'function' ? await t() : wrk(t, seconds);
      const all = [...(best[name]?.rounds ?? []), r];
      if (!best[name] || r.rps > best[name].rps) best[name] = { ...r, cpuUs: best[name]?.cpuUs ?? r.cpuUs };
      // CPU per request: the lower of the rounds, on the same reasoning.
      if (r.cpuUs < best[name].cpuUs) best[name].cpuUs = r.cpuUs;
      best[name].rounds = all;
    }
  }
  return best;
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/**
 * One table row: the figure, its ratio to `baseline` with the goal it is held to, and the
 * server's CPU time per request with the same ratio taken on CPU (baseline ÷ this), which is
 * what the req/s ratio would be on an idle machine where the server is CPU-bound.
 */
export function row(name, result, baseline, goal = '') {
  const ratio = baseline ? `${(result.rps / baseline.rps).toFixed(2)}×` : '';
  const cpuRatio =
    baseline && Number.isFinite(result.cpuUs) && Number.isFinite(baseline.cpuUs)
      ? ` (${(baseline.cpuUs / result.cpuUs).toFixed(2)}×)`
      : '';
  return `| ${name} | ${Math.round(result.rps)} | ${fmt(result.p50)} | ${fmt(result.p99)} | ${fmt(result.cpuUs, 0)}${cpuRatio} | ${ratio} | ${goal} |`;
}

const median = (values) => {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
};

/**
 * A row for `result` against its twin `baseline` measured in the same rounds of `interleaved`:
 * each round's ratio is taken within the round (the two ran seconds apart, under the same load),
 * and the median of those is printed, with their range, beside the median req/s and CPU µs. On a
 * machine whose load moves run to run, a ratio of two best rounds can pair a quiet round of one
 * with a busy round of the other; paired rounds do not.
 */
export function pairedRow(name, result, baseline, goal = '') {
  const pairs = result.rounds.map((r, i) => ({ r, b: baseline.rounds[i] }));
  const ratios = pairs.map(({ r, b }) => r.rps / b.rps);
  const cpuRatios = pairs.map(({ r, b }) => b.cpuUs / r.cpuUs);
  const lo = Math.min(...ratios);
  const hi = Math.max(...ratios);
  const cpu = median(result.rounds.map((r) => r.cpuUs));
  const cpuOf = median(baseline.rounds.map((r) => r.cpuUs));
  return `| ${name}, median of ${pairs.length} paired rounds | ${Math.round(median(result.rounds.map((r) => r.rps)))} | ${fmt(median(result.rounds.map((r) => r.p50)))} | ${fmt(median(result.rounds.map((r) => r.p99)))} | ${fmt(cpu, 0)} against ${fmt(cpuOf, 0)} (${median(cpuRatios).toFixed(2)}×) | ${median(ratios).toFixed(2)}× (${lo.toFixed(2)}-${hi.toFixed(2)}) | ${goal} |`;
}

/** Runs `n` async calls with `concurrency` in flight; returns the wrk-shaped figures (CPU of `pid`). */
export async function closedLoop(n, concurrency, pid, call) {
  const latencies = [];
  const cpuBefore = cpuMs(pid);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await call(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { rps: n / seconds, p50: at(50), p99: at(99), cpuUs: ((cpuMs(pid) - cpuBefore) * 1000) / n };
}

/** One JSON API call; anything but a 2xx throws with the answer, so a bench never measures errors. */
export async function apiCall(base, method, path, headers, body, retried = false) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((err) => {
    // A kept-alive socket the server closed while wrk ran (its keep-alive timeout) fails the
    // next request on it before anything was sent; once more on a new socket.
    if (retried || err.cause?.code !== 'UND_ERR_SOCKET') throw err;
    return null;
  });
  if (!res) return apiCall(base, method, path, headers, body, true);
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
