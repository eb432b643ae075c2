#!/usr/bin/env node
// `node bench/profile.mjs <checkout|posts|agents|mcp-agents|mcp-posts> [seconds]`: starts svc-server
// under `node --cpu-prof`, loads one hot path with wrk, stops the server and prints where the CPU
// time went: self time by function and by package (express, pino, zod, better-sqlite3, svc, node).
// Finding out why comes before tuning (docs/benchmarks.md).
// On PostgreSQL with `SERVICE_DATABASE_URL` or `BENCH_POSTGRES_URL` set (a fresh database made beside
// it, as in the benches); `BENCH_ENGINES=sqlite` keeps SQLite then. One engine per run.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENGINES, keyFor, mcpToolCall, requireWrk, startServer, useEngine, wrk } from './lib.mjs';

const [what = 'checkout', seconds = '8'] = process.argv.slice(2);
// `--read <dir>`: only read the newest profile in <dir> (written by a bench case run with
// BENCH_PROFILE_DIR, e.g. `BENCH_PROFILE_DIR=/tmp/p pnpm bench webhooks`).
const reading = what === '--read';
const profDir = reading ? seconds : mkdtempSync(join(tmpdir(), 'svc-prof-'));
if (!reading) await profileUnderWrk();

async function profileUnderWrk() {
  requireWrk();
  // A URL given means PostgreSQL unless BENCH_ENGINES says otherwise: the last engine named.
  const engine = ENGINES.at(-1);
  useEngine(engine);
  console.log(`profiling ${what} on ${engine}`);
  const server = await startServer(
    { SERVICE_KEY_RATE_LIMIT: '1000000000' },
    { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] },
  );
  try {
    const json = async (url, init) => (await fetch(url, init)).json();
    let target;
    if (what === 'checkout') {
      const key = await keyFor(server.env, ['--service', 'commerce', '--env', 'sandbox', '--name', 'p']);
      const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
      const { public_token } = await json(`${server.commerce}/v1/sandbox/public_token`, {
        method: 'POST',
        headers: auth,
        body: '{}',
      });
      const { user_token } = await json(`${server.commerce}/v1/approval_tokens/exchange`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ public_token }),
      });
      const headers = { authorization: auth.authorization, 'service-user-token': user_token };
      const c = await json(`${server.commerce}/v1/checkouts`, {
        method: 'POST',
        headers: { ...auth, 'service-user-token': user_token },
        body: JSON.stringify({ product_url: 'https://protocol-shop.sandbox.test/products/mug' }),
      });
      target = { url: `${server.commerce}/v1/checkouts/${c.id}`, headers };
    } else {
      const brandId = (await json(`${server.content}/v1/brands`)).brands[0].id;
      const key = await keyFor(server.env, ['--service', 'content', '--name', 'p', '--scopes', 'read']);
      const mcp = (name, args) => mcpToolCall(server.content, key, name, args);
      target = {
        posts: { url: `${server.content}/v1/posts?brand_id=${brandId}&limit=20` },
        agents: { url: `${server.content}/v1/agents` },
        'mcp-agents': mcp('list_agents', {}),
        'mcp-posts': mcp('list_posts', { brandId, limit: 20 }),
      }[what];
    }
    const r = wrk(target, Number(seconds));
    console.log(`${what}: ${Math.round(r.rps)} req/s under the profiler`);
  } finally {
    await server.stop();
  }
}

// The largest profile: the server's main thread. A worker thread (the SQLite checkpointer, a
// sliced JSON reader) writes its own, often the newest, and is not the hot path.
const file = readdirSync(profDir)
  .filter((f) => f.endsWith('.cpuprofile'))
  .map((f) => ({ f, size: statSync(join(profDir, f)).size }))
  .sort((a, b) => a.size - b.size)
  .at(-1)?.f;
const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8'));
if (!reading && !process.env.BENCH_KEEP_PROFILE) rmSync(profDir, { recursive: true, force: true });
else if (!reading) console.log(`profile kept: ${join(profDir, file)}`);
const dt = new Map();
// Under wrk, only the load's own seconds count (the last `seconds` before the server stopped):
// start-up (module loading, building the OpenAPI documents) would otherwise blur the hot path.
const at = [];
profile.samples.reduce((t, _, i) => {
  at[i] = t + (profile.timeDeltas[i] ?? 0);
  return at[i];
}, profile.startTime);
const from = reading ? Number.NEGATIVE_INFINITY : profile.endTime - Number(seconds) * 1e6;
profile.samples.forEach((id, i) => {
  if (at[i] >= from) dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const byFn = new Map();
const byPkg = new Map();
const pkgOf = (url) => {
  if (!url) return '(native/gc/idle)';
  const m = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node core';
  if (url.includes('/dist/')) return 'svc';
  return url;
};
for (const n of profile.nodes) {
  const t = dt.get(n.id) ?? 0;
  if (!t) continue;
  const { functionName, url, lineNumber } = n.callFrame;
  const key = `${functionName || '(anon)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  byFn.set(key, (byFn.get(key) ?? 0) + t);
  const pkg = pkgOf(url);
  byPkg.set(pkg, (byPkg.get(pkg) ?? 0) + t);
}
// Inclusive time: a frame's own time and everything it called (counted once per stack).
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const inclusive = new Map();
const walk = (id, onStack) => {
  const n = byId.get(id);
  const { functionName, url, lineNumber } = n.callFrame;
  const key = `${functionName || '(anon)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
  let t = dt.get(id) ?? 0;
  const fresh = !onStack.has(key);
  if (fresh) onStack.add(key);
  for (const c of n.children ?? []) t += walk(c, onStack);
  if (fresh) {
    onStack.delete(key);
    if (url && !url.startsWith('node:')) inclusive.set(key, (inclusive.get(key) ?? 0) + t);
  }
  return t;
};
walk(profile.nodes[0].id, new Set());
const pct = (t) => `${((100 * t) / total).toFixed(1)}%`;
console.log(`\nself time by package${reading ? '' : ` (the last ${seconds} s, under wrk)`}`);
for (const [k, t] of [...byPkg].sort((a, b) => b[1] - a[1]).slice(0, 12))
  console.log(`  ${pct(t).padStart(6)}  ${k}`);
console.log('\nself time by function (top 25)');
for (const [k, t] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log(`  ${pct(t).padStart(6)}  ${k}`);
console.log('\ninclusive time by function, outside node core (top 40)');
for (const [k, t] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 40))
  console.log(`  ${pct(t).padStart(6)}  ${k}`);
