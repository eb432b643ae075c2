// The webhook dispatcher alone, without the API that makes the events: `events` × 15 pending
// deliveries written straight into a fresh commerce database, then drained by the dispatcher's
// background loop (`start()`, as the server runs it) to a receiver in a child process on core 1.
// Prints this process's CPU per delivery (the dispatcher's), on PostgreSQL its backends' CPU per
// delivery, and the dispatcher's transactions per delivery. Run it from the TypeScript source of a
// tree, so an old tree can be measured beside the new one (`git archive <commit> packages/server/src`
// into a scratch dir with a `node_modules` link), pinned to the server core:
//
//   cd bench && taskset -c 0 node --import tsx webhook-drain.mts ../packages/server <sqlite|postgres> [events=400]
//
// (tsx, a dev dependency of @svc/bench, runs the tree's TypeScript as it is.)
//
// DRAIN_PACE=<events per second>: the events are not written first but at that pace while the
// dispatcher runs, each in a transaction of its own followed by a nudge, as the API writes them
// (every 10 ms, the events due by then): the bench's steady state, where steps are small and
// many, rather than one backlog drained in large steps. The writer's own transactions are not
// counted in transactions per delivery; its CPU is (it is this process's), as in the server.
//
// PostgreSQL: BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres) makes and
// drops a database of its own. DRAIN_SQL: statements (`;`-separated) run after the migrations,
// for trying schema variants (an index dropped, a fillfactor).
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

if (process.argv[2] === '--receiver') {
  // Answers 200 to everything; tells the parent how many it received, and on how many
  // connections, when asked.
  let received = 0;
  let connections = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.end('ok');
    });
  });
  server.on('connection', () => {
    connections += 1;
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
  process.on('message', () => process.send?.({ received, connections }));
} else {
  await drain();
}

async function drain() {
  const [serverRoot = 'packages/server', engine = 'sqlite', eventsArg = '400'] = process.argv.slice(2);
  const events = Number(eventsArg);
  const ENDPOINTS = 15;
  const src = (p: string) => import(join(resolve(serverRoot), 'src', p));
  const { openServiceDatabase } = await src('platform/db/open.ts');
  const { commerceMigrations } = await src('commerce/db/migrations.ts');
  const { commerceStores } = await src('commerce/db/stores.ts');
  const { createDispatcher } = await src('commerce/webhooks/dispatcher.ts');

  const receiver = fork(new URL(import.meta.url).pathname, ['--receiver'], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  execFileSync('taskset', ['-pc', '1', String(receiver.pid)], { stdio: 'ignore' });
  const ask = () =>
    new Promise<{ port?: number; received?: number; connections?: number }>((r) => {
      receiver.once('message', (m) => r(m as { port?: number; received?: number; connections?: number }));
    });
  const { port } = await ask();
  let connections = 0;
  const received = async () => {
    const answer = ask();
    receiver.send('count');
    const got = await answer;
    connections = got.connections ?? 0;
    return got.received ?? 0;
  };

  const dataDir = mkdtempSync(join(tmpdir(), 'svc-drain-'));
  const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const pgName = engine === 'postgres' ? `svc_drain_${process.pid}` : undefined;
  let databaseUrl: string | undefined;
  if (pgName) {
    execFileSync('psql', [admin, '-qc', `CREATE DATABASE ${pgName}`]);
    const url = new URL(admin);
    url.pathname = `/${pgName}`;
    databaseUrl = url.href;
  }
  const db = await openServiceDatabase({
    service: 'commerce',
    dataDir,
    databaseUrl,
    migrations: commerceMigrations,
  });
  for (const sql of (process.env.DRAIN_SQL ?? '').split(';').filter((x) => x.trim())) await db.run(sql, []);

  const at = new Date(Date.now() - 1000).toISOString();
  const endpoints = Array.from({ length: ENDPOINTS }, (_, i) => `we_${i}`);
  for (const [i, id] of endpoints.entries())
    await commerceStores(db).webhooks.insertEndpoint({
      id,
      account_id: 'acct_1',
      env: 'sandbox',
      url: `http://127.0.0.1:${port}/hooks/${i}`,
      secret: `whsec_${i}`,
      created_at: at,
    });
  // A checkout-sized payload, like the events the API writes.
  const data = {
    id: 'chk_1',
    object: 'checkout',
    status: 'ready_for_confirmation',
    line_items: [{ title: 'A mug', quantity: 1, unit_price: 1200 }],
    totals: { subtotal: 1200, total: 1200 },
    currency: 'usd',
  };
  /** The store methods an event's writer calls (the tree's own types are not imported here). */
  interface EventWriter {
    insertEvent(e: Record<string, unknown>): Promise<void>;
    insertDeliveries(
      rows: { id: string; event_id: string; endpoint_id: string }[],
      at: string,
    ): Promise<void>;
  }
  const writeEvent = (s: EventWriter, n: number, created: string) =>
    s
      .insertEvent({
        id: `evt_${n}`,
        account_id: 'acct_1',
        env: 'sandbox',
        type: 'checkout.updated',
        data,
        created_at: created,
      })
      .then(() =>
        s.insertDeliveries(
          endpoints.map((w) => ({ id: `dlv_${n}_${w}`, event_id: `evt_${n}`, endpoint_id: w })),
          created,
        ),
      );
  const pace = Number(process.env.DRAIN_PACE ?? 0);
  if (!pace) {
    for (let first = 0; first < events; first += 50) {
      await db.transaction(async (tx: unknown) => {
        const s = commerceStores(tx).webhooks;
        for (let n = first; n < Math.min(events, first + 50); n++) await writeEvent(s, n, at);
      });
    }
  }
  const total = events * ENDPOINTS;

  const backends = async (): Promise<number[]> =>
    engine === 'postgres'
      ? (await db.all('SELECT pid FROM pg_stat_activity WHERE datname = current_database()', [])).map(
          (r: { pid: number }) => Number(r.pid),
        )
      : [];
  const ticks = (pids: number[]) => {
    const out = new Map<number, number>();
    for (const pid of pids) {
      try {
        const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        out.set(pid, Number(f[11]) + Number(f[12]));
      } catch {}
    }
    return out;
  };
  let transactions = 0;
  const transaction = db.transaction.bind(db);
  db.transaction = (fn: unknown, opts: unknown) => {
    transactions += 1;
    return transaction(fn, opts);
  };
  const silent = { warn() {}, error() {}, info() {}, debug() {} };
  const dispatcher = createDispatcher({
    db,
    clock: { now: () => new Date() },
    logger: silent,
    random: Math.random,
    allowPrivate: true,
  });

  // A pool connection may close while idle and its backend exit mid-run, taking its CPU count
  // with it: every backend seen is sampled while the run goes, and its last reading counted.
  const pgStart = ticks(await backends());
  const pgLast = new Map(pgStart);
  const sample = async () => {
    for (const [pid, t] of ticks(await backends())) pgLast.set(pid, t);
  };
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  dispatcher.start();
  let writerTransactions = 0;
  if (pace) {
    // As the API: one transaction per event, then a nudge once it has committed.
    for (let n = 0; n < events; ) {
      const due = Math.min(events, Math.floor(((performance.now() - started) / 1000) * pace));
      for (; n < due; n++) {
        const created = new Date().toISOString();
        writerTransactions += 1;
        await db.transaction((tx: unknown) => writeEvent(commerceStores(tx).webhooks, n, created));
        dispatcher.nudge();
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  for (let i = 0; (await received()) < total; i++) {
    await new Promise((r) => setTimeout(r, 20));
    if (i % 10 === 0) await sample();
  }
  const wall = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  await sample();
  let pgTicks = 0;
  for (const [pid, t] of pgLast) pgTicks += t - (pgStart.get(pid) ?? 0);
  await dispatcher.stop();
  // PostgreSQL: the deliveries' row updates (leases and outcomes), and how many were HOT (no
  // index entry written). Each backend sends its counts within a second of going idle.
  let updates: { n_tup_upd: number; n_tup_hot_upd: number } | undefined;
  if (pgName) {
    await new Promise((r) => setTimeout(r, 2500));
    const row = await db.get(
      "SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'deliveries'",
      [],
    );
    updates = { n_tup_upd: Number(row?.n_tup_upd), n_tup_hot_upd: Number(row?.n_tup_hot_upd) };
  }
  const tick = 1e6 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  console.log(
    JSON.stringify({
      engine,
      deliveries: total,
      per_second: Math.round(total / (wall / 1000)),
      dispatcher_cpu_us: Math.round((cpu.user + cpu.system) / total),
      postgres_cpu_us: pgName ? Math.round((pgTicks * tick) / total) : null,
      transactions_per_delivery: Number(((transactions - writerTransactions) / total).toFixed(3)),
      connections_opened: connections,
      // PostgreSQL: statements parsed (prepared) and run, per delivery; a statement whose text
      // varies with its batch is parsed again for every new size on every connection.
      ...(db.statements
        ? {
            statements_prepared: db.statements.counts.prepared,
            statements_run_per_delivery: Number((db.statements.counts.executed / total).toFixed(3)),
          }
        : {}),
      ...(updates
        ? { deliveries_updated: updates.n_tup_upd, deliveries_hot_updated: updates.n_tup_hot_upd }
        : {}),
      ...(pace ? { paced_events_per_second: pace } : {}),
    }),
  );
  receiver.kill();
  await db.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (pgName) execFileSync('psql', [admin, '-qc', `DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`]);
}
