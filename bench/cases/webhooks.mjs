import { execFileSync, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import pg from 'pg';
import { apiCall, cpuMs, keyFor, root, startServer } from '../lib.mjs';

// Webhook dispatcher to a local receiver: signed deliveries per second and first-attempt latency
// (event creation to receipt), with and without a dead endpoint (one that accepts the connection
// and never answers) beside the healthy ones. Events come from real API calls (each checkout
// created writes its events and fans them out to every endpoint in the same transaction), paced
// at a fixed offered load, so the figure includes the nudge from the write to the dispatcher.
// The receiver runs in a process of its own and the dead endpoint in this one, both on the load
// core; the server on the server core.

const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 5);
/** Deliveries per second offered: above the goal, so a dispatcher that keeps up shows ≥ 2,000/s. */
const OFFERED = Number(process.env.BENCH_WEBHOOK_RATE ?? 2400);
const HEALTHY_ENDPOINTS = 15;

const call = apiCall;

/**
 * The receiver's own process: answers 200 at once, verifies each signature and records, per
 * delivery, when it arrived. A process of its own (on the load core, as this one) so a receipt
 * never waits for this process's turn: the paced API client and the PostgreSQL sampler here
 * held receipts for up to 600 ms on a loaded machine, which counted as delivery latency.
 */
async function receiverProcess() {
  const { verifySignature } = await import(pathToFileURL(join(root, 'packages/webhooks/dist/index.js')).href);
  let secrets = new Map();
  let arrivals = [];
  let bad = 0;
  const lag = monitorEventLoopDelay({ resolution: 10 });
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const received = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        verifySignature(body, req.headers['service-signature'], secrets.get(req.url));
      } catch {
        bad += 1;
      }
      const event = JSON.parse(body);
      arrivals.push({ key: `${event.id} ${req.url}`, created: Date.parse(event.created_at), received });
      res.end('ok');
    });
  });
  // Connections the dispatcher opened to the receiver in the round: each is a connect, an HTTP
  // parser and a socket on both sides, so a round that opens many pays for them.
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => {
    if (m.secrets) secrets = new Map(m.secrets);
    if (m.reset) {
      arrivals = [];
      connections = 0;
      lag.reset();
      lag.enable();
    }
    const report = m.report
      ? { arrivals, connections, lagP99: lag.percentile(99) / 1e6, lagMax: lag.max / 1e6 }
      : {};
    process.send({ id: m.id, count: arrivals.length, bad, ...report });
  });
}
if (process.argv[2] === '--webhook-receiver') await receiverProcess();

/** Starts the receiver's process; `ask` sends it a message and resolves with its answer. */
async function startReceiver() {
  const child = fork(import.meta.filename, ['--webhook-receiver'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { port } = await new Promise((r) => child.once('message', r));
  let next = 0;
  const waiting = new Map();
  child.on('message', (m) => {
    waiting.get(m.id)?.(m);
    waiting.delete(m.id);
  });
  const ask = (m = {}) =>
    new Promise((r) => {
      const id = ++next;
      waiting.set(id, r);
      child.send({ ...m, id });
    });
  return {
    base: `http://127.0.0.1:${port}`,
    ask,
    /** Deliveries received so far. */
    count: async () => (await ask()).count,
    close: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill();
      }),
  };
}

/**
 * Takes every request and never answers it (the dispatcher's timeout ends each attempt). Counts
 * per round (`reset()`): the attempts it took, and the most it held open at once, which the
 * dispatcher's per-endpoint limit bounds. One such endpoint serves both rounds of a run, so a
 * count since its start summed the cold round into the warm one's figure (64, then 128).
 */
async function startDeadReceiver() {
  let open = 0;
  let taken = 0;
  let most = 0;
  const server = createServer((req) => {
    open += 1;
    taken += 1;
    most = Math.max(most, open);
    req.socket.once('close', () => {
      open -= 1;
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/dead`,
    /** Starts a round: what is still held from the last one counts as held at once from here. */
    reset: () => {
      taken = 0;
      most = open;
    },
    /** This round's figure for a report line. */
    figure: () => `dead endpoint took ${taken} attempts, at most ${most} held at once`,
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

/** Each first attempt's start (`delivery_attempts.started_at`, taken as its claim committed), by event and endpoint path. */
async function firstAttempts(server) {
  const sql = `SELECT d.event_id, w.url, a.started_at FROM delivery_attempts a
    JOIN deliveries d ON d.id = a.delivery_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
    WHERE a.attempt = 1`;
  let rows;
  if (server.databaseUrl) {
    const client = new pg.Client({ connectionString: server.databaseUrl });
    await client.connect();
    try {
      // The commerce service's tables are in its own schema of the database.
      await client.query('SET search_path TO commerce');
      rows = (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  } else {
    const db = new Database(join(server.dataDir, 'commerce.sqlite'), { readonly: true });
    rows = db.prepare(sql).all();
    db.close();
  }
  return new Map(rows.map((r) => [`${r.event_id} ${new URL(r.url).pathname}`, Date.parse(r.started_at)]));
}

/** `firstAttempts` once the outcomes of the last deliveries received are written too (or after 2 s). */
async function firstAttemptsOf(server, received) {
  for (let tries = 0; ; tries++) {
    const started = await firstAttempts(server);
    if (started.size >= received || tries === 40) return started;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Where the first attempts' time went, printed under the table: from the event's creation to its
 * attempt's start (the API's commit, the wait for a free slot and a claim, the claim itself) and
 * from that start to receipt (signing, the request, this process's own turn to read it), for all
 * deliveries and for the slowest 1 %; then the p99 by when the event was made, so a tail that is
 * one stall shows apart from one spread over the run. `lag`: the receiver's and the API client's
 * event-loop delays, p99 and max in ms.
 */
function phases(label, arrivals, started, lag) {
  const rows = arrivals
    .map((a) => ({ ...a, start: started.get(a.key) }))
    .filter((a) => a.start !== undefined)
    .map((a) => ({
      created: a.created,
      total: a.received - a.created,
      wait: a.start - a.created,
      send: a.received - a.start,
    }));
  if (rows.length === 0) return;
  // A delivery received twice (sent again after its lease ran out) or one whose outcome is still
  // unwritten has no first attempt of its own to match: counted, so neither hides in the split.
  const twice = arrivals.length - new Set(arrivals.map((a) => a.key)).size;
  const pct = (xs, p) => {
    const s = [...xs].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
  };
  const col = (xs, k) => xs.map((r) => r[k]);
  rows.sort((a, b) => a.total - b.total);
  const tail = rows.slice(Math.floor(rows.length * 0.99));
  const first = Math.min(...col(rows, 'created'));
  const buckets = new Map();
  for (const r of rows) {
    const b = Math.floor((r.created - first) / 500);
    if (!buckets.has(b)) buckets.set(b, []);
    buckets.get(b).push(r);
  }
  const timeline = [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([b, rs]) => `${(b / 2).toFixed(1)}s:${pct(col(rs, 'total'), 99)}`)
    .join(' ');
  console.error(
    `${label}: ${rows.length} first attempts matched of ${arrivals.length} received (${twice} received twice); wait (created to attempt start) p50 ${pct(col(rows, 'wait'), 50)} p99 ${pct(col(rows, 'wait'), 99)} ms, send (start to receipt) p50 ${pct(col(rows, 'send'), 50)} p99 ${pct(col(rows, 'send'), 99)} ms; slowest 1 % (total ≥ ${tail[0].total} ms): wait median ${pct(col(tail, 'wait'), 50)} ms, send median ${pct(col(tail, 'send'), 50)} ms; event-loop delay p99/max: receiver ${lag.receiver.map((x) => x.toFixed(0)).join('/')} ms, API client ${lag.client.map((x) => x.toFixed(0)).join('/')} ms\n  p99 ms by creation time (0.5 s buckets): ${timeline}`,
  );
}

async function run({ dead }) {
  const secrets = new Map();
  const receiver = await startReceiver();
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
    await receiver.ask({ secrets: [...secrets] });
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
    while ((await receiver.count()) < HEALTHY_ENDPOINTS) await new Promise((r) => setTimeout(r, 10));
    const perCheckout = await receiver.count();
    // Two rounds on the same server: `cold` right after start (code not yet optimised, undici not
    // yet loaded, no connection to the receiver open), as every pass before the ninth measured,
    // then `warm`, the same offered load once the first round's deliveries have all arrived: what
    // a server that has been running meets. Both are printed; neither hides the other.
    const rounds = [];
    for (const warm of [false, true]) {
      await receiver.ask({ reset: true });
      deadReceiver?.reset();
      rounds.push(await measure(warm));
    }
    return rounds;

    async function measure(warm) {
      const lag = monitorEventLoopDelay({ resolution: 10 });
      lag.enable();

      // Paced producer: every 20 ms, the checkouts that bring the offered delivery rate.
      const perSecond = OFFERED / perCheckout;
      const probe = server.databaseUrl ? postgresProbe(server.databaseUrl) : null;
      const pgBefore = probe?.transactions();
      sampler = server.databaseUrl ? await backendSampler(server.databaseUrl) : null;
      const cpuBefore = cpuMs(server.pid);
      const started = performance.now();
      let made = 0;
      const inFlight = new Set();
      // The server's CPU per delivery received, per half second: a start-up transient (code not yet
      // optimised) shows as dearer first buckets, whatever the machine's load.
      const cpuSteps = [];
      const cpuTimer = setInterval(() => {
        const ms = cpuMs(server.pid);
        receiver.count().then((n) => cpuSteps.push([ms, n]));
      }, 500);
      while (performance.now() - started < SECONDS * 1000) {
        const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
        // At most 16 creations in flight: past that the API, not the dispatcher, is the limit.
        while (made < due && inFlight.size < 16) {
          const p = create(`${warm ? 'w' : 'c'}${++made}`).finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      await Promise.all(inFlight);
      const expected = made * perCheckout;
      for (let waited = 0; (await receiver.count()) < expected && waited < 60_000; waited += 20)
        await new Promise((r) => setTimeout(r, 20));
      const seconds = (performance.now() - started) / 1000;
      clearInterval(cpuTimer);
      const cpu = cpuMs(server.pid) - cpuBefore;
      const cpuTimeline = cpuSteps
        .map(([ms, n], i) => {
          const [ms0, n0] = i === 0 ? [cpuBefore, 0] : cpuSteps[i - 1];
          return n > n0 ? Math.round(((ms - ms0) * 1000) / (n - n0)) : '–';
        })
        .join(' ');
      const report = await receiver.ask({ report: true });
      const got = report.arrivals.length;
      const sorted = report.arrivals.map((a) => a.received - a.created).sort((a, b) => a - b);
      const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
      if (report.bad > 0) throw new Error(`${report.bad} deliveries failed signature verification`);
      lag.disable();
      phases(
        `${server.databaseUrl ? 'PostgreSQL' : 'SQLite'}${dead ? ', dead endpoint beside' : ''}${warm ? ', warm' : ', cold'}`,
        report.arrivals,
        await firstAttemptsOf(server, got),
        { receiver: [report.lagP99, report.lagMax], client: [lag.percentile(99) / 1e6, lag.max / 1e6] },
      );
      console.error(`  server CPU µs per delivery received, by half second: ${cpuTimeline}`);
      const pgCost = probe && sampler ? `, ${await postgresCost(probe, pgBefore, sampler, got)}` : '';
      return {
        warm,
        rps: got / seconds,
        p50: at(50),
        p99: at(99),
        cpuUs: (cpu * 1000) / got,
        note: `${got}/${expected} delivered over ${report.connections} connections, ${Math.round((made * perCheckout) / SECONDS)}/s offered${deadReceiver ? `, ${deadReceiver.figure()}` : ''}${pgCost}`,
      };
    }
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

/**
 * The dispatcher alone, then beside a dead endpoint, each cold (just started) and warm (the same
 * load again on the same server); the req/s column holds deliveries/s.
 */
export default async function webhooksBench() {
  const [alone, aloneWarm] = await run({ dead: false });
  const [withDead, withDeadWarm] = await run({ dead: true });
  const name = `webhook dispatcher to a local receiver: ${HEALTHY_ENDPOINTS} endpoints, ${OFFERED}/s offered for ${SECONDS} s; p50/p99 from event creation to receipt`;
  return [
    line(`${name}; cold (the server's first load)`, alone, '≥ 2,000/s, p99 ≤ 250 ms'),
    line('the same with a dead endpoint beside them; cold', withDead, 'unchanged'),
    line(`${name}; warm (the same load again)`, aloneWarm, '≥ 2,000/s, p99 ≤ 250 ms'),
    line('the same with a dead endpoint beside them; warm', withDeadWarm, 'unchanged'),
  ];
}
