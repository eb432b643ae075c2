import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { apiCall, cpuMs, keyFor, root, startServer } from '../lib.mjs';

// Webhook dispatcher to a local receiver: signed deliveries per second and first-attempt latency
// (event creation to receipt), with and without a dead endpoint (one that accepts the connection
// and never answers) beside the healthy ones. Events come from real API calls (each checkout
// created writes its events and fans them out to every endpoint in the same transaction), paced
// at a fixed offered load, so the figure includes the nudge from the write to the dispatcher.
// The receivers run in this process, pinned to the load core; the server on the server core.

const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 5);
/** Deliveries per second offered: above the goal, so a dispatcher that keeps up shows ≥ 2,000/s. */
const OFFERED = Number(process.env.BENCH_WEBHOOK_RATE ?? 2400);
const HEALTHY_ENDPOINTS = 15;

const call = apiCall;

/** Answers 200 at once and records, per delivery, the latency from the event's creation. */
async function startReceiver(verify, secrets) {
  const latencies = [];
  let bad = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const secret = secrets.get(req.url);
      try {
        verify(body, req.headers['service-signature'], secret);
      } catch {
        bad += 1;
      }
      latencies.push(Date.now() - Date.parse(JSON.parse(body).created_at));
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    latencies,
    bad: () => bad,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}

/** Takes every request and never answers it (the dispatcher's timeout ends each attempt). */
async function startDeadReceiver() {
  let held = 0;
  const server = createServer(() => {
    held += 1;
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/dead`,
    held: () => held,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}

/** What PostgreSQL itself counts for the server's database (`url`, the server's own). */
function postgresProbe(url) {
  const read = (sql) => execFileSync('psql', [url, '-Atc', sql], { encoding: 'utf8' }).trim();
  return {
    /** Transactions committed or rolled back in this database so far. */
    transactions: () =>
      Number(
        read('SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()'),
      ),
  };
}

/** Microseconds in one clock tick of /proc/<pid>/stat. */
const TICK_US = 1e6 / (Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100);

/** CPU ticks of each process, by pid (a process that is gone reads as absent). */
function cpuByPid(pids) {
  const out = new Map();
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      out.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {}
  }
  return out;
}

/**
 * Every backend of the server's database seen during a run, with its latest CPU reading. A pool
 * connection closed while idle takes its backend (and its CPU count) away, so reading the backends
 * only at the end could miss some. Sampled every 200 ms through a client of its own, asynchronously
 * so the receivers in this process are not held; its own backend and queries are left out.
 */
async function backendSampler(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let queries = 0;
  const latest = new Map();
  const sample = async () => {
    queries += 1;
    const { rows } = await client.query(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    for (const [pid, t] of cpuByPid(rows.map((r) => r.pid))) latest.set(pid, t);
  };
  await sample();
  const start = new Map(latest);
  let running = sample();
  const timer = setInterval(() => {
    running = running.then(sample, () => undefined);
  }, 200);
  return {
    /** Stops sampling: the backends' CPU ticks since the start, and the queries it made. */
    async stop() {
      clearInterval(timer);
      await running.catch(() => undefined);
      await sample();
      await client.end();
      let ticks = 0;
      for (const [pid, t] of latest) ticks += t - (start.get(pid) ?? 0);
      return { ticks, queries };
    },
  };
}

/**
 * PostgreSQL's side of a run: its backends' CPU per delivery (not in the server's CPU column) and
 * transactions per delivery (the sampler's own queries taken out). PostgreSQL 15 publishes a busy
 * backend's counts up to 10 s late, so the count is read after a pause.
 */
async function postgresCost(probe, before, sampler, delivered) {
  const { ticks, queries } = await sampler.stop();
  await new Promise((r) => setTimeout(r, 11_000));
  const transactions = probe.transactions() - before - queries;
  return `PostgreSQL ${Math.round((ticks * TICK_US) / delivered)} µs CPU and ${(transactions / delivered).toFixed(2)} transactions per delivery`;
}

async function run({ dead }) {
  const { verifySignature } = await import(pathToFileURL(join(root, 'packages/webhooks/dist/index.js')).href);
  const secrets = new Map();
  const receiver = await startReceiver(verifySignature, secrets);
  const deadReceiver = dead ? await startDeadReceiver() : null;
  // BENCH_PROFILE_DIR=<dir>: the server writes a CPU profile there (read it with bench/profile.mjs --read).
  const prof = process.env.BENCH_PROFILE_DIR;
  // On PostgreSQL, startServer gives each run a fresh database of its own (and drops it at stop),
  // so the second run starts as empty as the first (an environment holds 16 endpoints).
  const server = await startServer(
    { SERVICE_WEBHOOK_ALLOW_PRIVATE: '1' },
    prof ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${prof}`] } : {},
  );
  /** PostgreSQL only: started just before the paced run, stopped by postgresCost (or here). */
  let sampler = null;
  try {
    const key = await keyFor(server.env, ['--service', 'commerce', '--env', 'sandbox', '--name', 'bench']);
    const auth = { authorization: `Bearer ${key}` };
    if (deadReceiver)
      await call(server.commerce, 'POST', '/v1/webhook_endpoints', auth, { url: deadReceiver.url });
    for (let i = 0; i < HEALTHY_ENDPOINTS; i++) {
      const path = `/hooks/${i}`;
      const made = await call(server.commerce, 'POST', '/v1/webhook_endpoints', auth, {
        url: `${receiver.base}${path}`,
      });
      secrets.set(path, made.secret);
    }
    const { public_token } = await call(server.commerce, 'POST', '/v1/sandbox/public_token', auth, {});
    const { user_token } = await call(server.commerce, 'POST', '/v1/approval_tokens/exchange', auth, {
      public_token,
    });
    const headers = { ...auth, 'service-user-token': user_token };
    const create = (n) =>
      call(server.commerce, 'POST', '/v1/checkouts', headers, {
        product_url: `https://protocol-shop.sandbox.test/products/bench-hook-${n}`,
      });
    // One checkout first, to learn how many events (so deliveries) one creation writes.
    await create(0);
    while (receiver.latencies.length < HEALTHY_ENDPOINTS) await new Promise((r) => setTimeout(r, 10));
    const perCheckout = receiver.latencies.length;
    receiver.latencies.length = 0;

    // Paced producer: every 20 ms, the checkouts that bring the offered delivery rate.
    const perSecond = OFFERED / perCheckout;
    const probe = server.databaseUrl ? postgresProbe(server.databaseUrl) : null;
    const pgBefore = probe?.transactions();
    sampler = server.databaseUrl ? await backendSampler(server.databaseUrl) : null;
    const cpuBefore = cpuMs(server.pid);
    const started = performance.now();
    let made = 0;
    const inFlight = new Set();
    while (performance.now() - started < SECONDS * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
      // At most 16 creations in flight: past that the API, not the dispatcher, is the limit.
      while (made < due && inFlight.size < 16) {
        const p = create(++made).finally(() => inFlight.delete(p));
        inFlight.add(p);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await Promise.all(inFlight);
    const expected = made * perCheckout;
    for (let waited = 0; receiver.latencies.length < expected && waited < 60_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    const seconds = (performance.now() - started) / 1000;
    const cpu = cpuMs(server.pid) - cpuBefore;
    const got = receiver.latencies.length;
    const sorted = [...receiver.latencies].sort((a, b) => a - b);
    const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
    if (receiver.bad() > 0) throw new Error(`${receiver.bad()} deliveries failed signature verification`);
    const pgCost = probe && sampler ? `, ${await postgresCost(probe, pgBefore, sampler, got)}` : '';
    return {
      rps: got / seconds,
      p50: at(50),
      p99: at(99),
      cpuUs: (cpu * 1000) / got,
      note: `${got}/${expected} delivered, ${Math.round((made * perCheckout) / SECONDS)}/s offered${deadReceiver ? `, dead endpoint holding ${deadReceiver.held()}` : ''}${pgCost}`,
    };
  } finally {
    // Stopped already after a run that finished; this ends it after one that threw.
    await sampler?.stop().catch(() => undefined);
    await server.stop();
    await receiver.close();
    await deadReceiver?.close();
  }
}

const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
const line = (name, r, goal) =>
  `| ${name} (${r.note}) | ${Math.round(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.cpuUs, 0)} | | ${goal} |`;

/** The dispatcher alone, then beside a dead endpoint; the req/s column holds deliveries/s. */
export default async function webhooksBench() {
  const alone = await run({ dead: false });
  const withDead = await run({ dead: true });
  return [
    line(
      `webhook dispatcher to a local receiver: ${HEALTHY_ENDPOINTS} endpoints, ${OFFERED}/s offered for ${SECONDS} s; p50/p99 from event creation to receipt`,
      alone,
      '≥ 2,000/s, p99 ≤ 250 ms',
    ),
    line('the same with a dead endpoint beside them', withDead, 'unchanged'),
  ];
}
