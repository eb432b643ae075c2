#!/usr/bin/env node
// `BENCH_POSTGRES_URL=postgres://… node bench/pg-backend-cpu.mjs [another build's cli.js]`: the
// PostgreSQL server's own CPU per request (its backends' user + system time, from /proc, so the
// server must be on this machine) for `GET /v1/checkouts/{id}` and the posts list, beside svc's
// CPU per request, for this build and, given one, another in the same run (A/B, two rounds,
// interleaved). The bench cases' CPU column is svc's process alone; what preparing statements
// saves is mostly on PostgreSQL's side. Figures move with the machine; compare within one run.
// `BENCH_PREPARE_AB=1`: this build with preparing on and off (SERVICE_DATABASE_PREPARE) instead.
// The order alternates per round (A B, B A, …; BENCH_ROUNDS, default 4), so whichever runs first
// on a warming or loaded machine does not always favour the same side.
import pg from 'pg';
import { userWithCheckouts } from './cases/commerce.mjs';
import { closedLoop, cpuMs, keyFor, pinSelf, startServer, useEngine } from './lib.mjs';

pinSelf();
useEngine('postgres');
const N = Number(process.env.BENCH_REQUESTS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const builds = process.env.BENCH_PREPARE_AB
  ? {
      prepared: { env: { SERVICE_DATABASE_PREPARE: '1' } },
      unprepared: { env: { SERVICE_DATABASE_PREPARE: '0' } },
    }
  : { this: {}, ...(process.argv[2] ? { other: { cli: process.argv[2] } } : {}) };

/** CPU ms of every backend connected to the database, but the one asking. */
async function backendsCpu(client) {
  const { rows } = await client.query(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
  );
  return new Map(rows.map((r) => [r.pid, cpuMs(r.pid)]));
}

/** `call` N times, 16 in flight: svc's and PostgreSQL's CPU µs per call. */
async function measure(server, client, call) {
  const before = await backendsCpu(client);
  const r = await closedLoop(N, 16, server.pid, call);
  const after = await backendsCpu(client);
  let ms = 0;
  for (const [pid, t] of after) if (Number.isFinite(t)) ms += t - (before.get(pid) ?? 0);
  return { svc: r.cpuUs, postgres: (ms * 1000) / N, rps: r.rps };
}

const get = async (url, headers) => {
  const res = await fetch(url, { headers });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  await res.arrayBuffer();
};

const results = [];
for (let round = 1; round <= ROUNDS; round++) {
  const order = Object.entries(builds);
  if (round % 2 === 0) order.reverse();
  for (const [name, { env = {}, cli }] of order) {
    const server = await startServer(env, cli ? { cli } : {});
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      const key = await keyFor(server.env, ['--service', 'commerce', '--env', 'sandbox', '--name', 'b']);
      const { headers, ids } = await userWithCheckouts(server.commerce, key, 1);
      const brandId = (await (await fetch(`${server.content}/v1/brands`)).json()).brands[0].id;
      const checkout = `${server.commerce}/v1/checkouts/${ids[0]}`;
      const posts = `${server.content}/v1/posts?brand_id=${brandId}&limit=20`;
      for (let i = 0; i < 200; i++) await Promise.all([get(checkout, headers), get(posts)]); // warm-up
      results.push({
        round,
        name,
        what: 'checkout',
        ...(await measure(server, client, () => get(checkout, headers))),
      });
      results.push({ round, name, what: 'posts list', ...(await measure(server, client, () => get(posts))) });
    } finally {
      await client.end();
      await server.stop();
    }
  }
}
console.log(`${new Date().toISOString()}, ${N} requests each, 16 in flight; CPU µs per request`);
console.log('| round | build | request | svc CPU | PostgreSQL CPU | req/s |');
console.log('|---|---|---|---:|---:|---:|');
for (const r of results)
  console.log(
    `| ${r.round} | ${r.name} | ${r.what} | ${Math.round(r.svc)} | ${Math.round(r.postgres)} | ${Math.round(r.rps)} |`,
  );
// Medians over the rounds, per build and request: one slow round on a shared machine moves them least.
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
console.log('\n| build | request | median svc CPU | median PostgreSQL CPU |\n|---|---|---:|---:|');
for (const name of Object.keys(builds))
  for (const what of ['checkout', 'posts list']) {
    const of = results.filter((r) => r.name === name && r.what === what);
    console.log(
      `| ${name} | ${what} | ${Math.round(median(of.map((r) => r.svc)))} | ${Math.round(median(of.map((r) => r.postgres)))} |`,
    );
  }
