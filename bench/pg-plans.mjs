#!/usr/bin/env node
// `BENCH_POSTGRES_URL=postgres://… node bench/pg-plans.mjs`: what the PostgreSQL server spends
// planning against executing the hot statements, as svc sends them. It starts svc-server on a fresh
// database with statement logging on for that database alone, drives the hot paths once (checkout
// by id with its auth lookups, a keyed confirm, a webhook claim, the posts list, MCP list_posts),
// reads the statements and their parameters back from the server's log, and then, for each:
// - EXPLAIN (ANALYZE, SUMMARY) as a one-off statement (how svc ran it before preparing): planning
//   and execution time, median of 15;
// - the same statement PREPAREd and EXPLAIN ANALYZE EXECUTEd 8 times, as a prepared statement
//   runs on one connection: each run's planning time and whether the plan was custom or generic
//   (PostgreSQL tries a generic plan after 5 custom ones and keeps it when it costs no more).
// Writes run inside a transaction that is rolled back. Figures move with the machine; read the
// ratio of planning to execution, not the microseconds.
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import pg from 'pg';
import { apiCall, freshPostgres, keyFor, mcpToolCall, POSTGRES_URL, startServer, useEngine } from './lib.mjs';

const LOG = process.env.PG_LOG ?? '/var/log/postgresql/postgresql-15-main.log';
if (!POSTGRES_URL) throw new Error('set BENCH_POSTGRES_URL=postgres://user@host:5432/db');
useEngine('postgres');

const logStart = statSync(LOG).size;
const fresh = await freshPostgres();
const dbName = new URL(fresh.url).pathname.slice(1);
const admin = new pg.Client({ connectionString: POSTGRES_URL });
await admin.connect();
await admin.query(`ALTER DATABASE ${dbName} SET log_min_duration_statement = 0`);
await admin.end();

const receiver = createServer((req, res) => req.resume().on('end', () => res.end('ok')));
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const server = await startServer(
  { SERVICE_WEBHOOK_ALLOW_PRIVATE: '1', SERVICE_KEY_RATE_LIMIT: '1000000' },
  { databaseUrl: fresh.url },
);
const marks = [];
/** Each hot path with a label; log lines between two marks belong to it. */
const mark = (label) => marks.push({ label, at: Date.now() });
try {
  const key = await keyFor(server.env, ['--service', 'commerce', '--env', 'sandbox', '--name', 'p']);
  const auth = { authorization: `Bearer ${key}` };
  await apiCall(server.commerce, 'POST', '/v1/webhook_endpoints', auth, {
    url: `http://127.0.0.1:${receiver.address().port}/hook`,
  });
  const { public_token } = await apiCall(server.commerce, 'POST', '/v1/sandbox/public_token', auth, {});
  const { user_token } = await apiCall(server.commerce, 'POST', '/v1/approval_tokens/exchange', auth, {
    public_token,
  });
  const headers = { ...auth, 'service-user-token': user_token };
  const c = await apiCall(server.commerce, 'POST', '/v1/checkouts', headers, {
    product_url: 'https://protocol-shop.sandbox.test/products/plan-mug',
    buyer: { email: 'ada@example.com' },
    shipping_address: {
      name: 'Ada',
      line1: '1 Main St',
      city: 'Springfield',
      region: 'IL',
      postal_code: '62701',
      country: 'US',
    },
  });
  await new Promise((r) => setTimeout(r, 1500)); // the dispatcher claims and sends the events
  mark('checkout GET');
  await apiCall(server.commerce, 'GET', `/v1/checkouts/${c.id}`, headers);
  mark('keyed confirm');
  await apiCall(server.commerce, 'POST', `/v1/checkouts/${c.id}/confirm`, {
    ...headers,
    'idempotency-key': 'plan-1',
  });
  await new Promise((r) => setTimeout(r, 1500));
  mark('posts list');
  const brandId = (await (await fetch(`${server.content}/v1/brands`)).json()).brands[0].id;
  await fetch(`${server.content}/v1/posts?brand_id=${brandId}&limit=20`).then((r) => r.json());
  const ckey = await keyFor(server.env, ['--service', 'content', '--name', 'p', '--scopes', 'read']);
  mark('MCP list_posts');
  const call = mcpToolCall(server.content, ckey, 'list_posts', { brandId, limit: 20 });
  await fetch(call.url, call).then((r) => r.text());
  mark('end');
  await new Promise((r) => setTimeout(r, 300));
} finally {
  await server.stop({ keep: true });
  receiver.close();
}

// The log: `<ts> UTC [pid] user@db LOG:  duration: … ms  execute <unnamed>: SQL` (continuation
// lines start with a tab), then `DETAIL:  parameters: $1 = '…', …`.
const text = readFileSync(LOG, 'utf8').slice(logStart);
const entries = [];
let current = null;
for (const line of text.split('\n')) {
  const head = /^(\S+ \S+) UTC \[\d+\] \S+@(\S+) (\w+):\s+(.*)$/.exec(line);
  if (head) {
    if (head[2] !== dbName) {
      current = null;
      continue;
    }
    const [, ts, , kind, rest] = head;
    const exec = /^duration: [\d.]+ ms {2}(?:execute [^:]*|statement): (.*)$/.exec(rest);
    if (kind === 'LOG' && exec) {
      current = { at: Date.parse(`${ts.replace(' ', 'T')}Z`), sql: exec[1], params: [] };
      entries.push(current);
    } else if (kind === 'DETAIL' && current && rest.startsWith('parameters: ')) {
      for (const m of rest.matchAll(/\$\d+ = (NULL|'((?:[^']|'')*)')/g))
        current.params.push(m[1] === 'NULL' ? null : m[2].replaceAll("''", "'"));
    } else current = null;
  } else if (line.startsWith('\t') && current) current.sql += `\n${line.slice(1)}`;
}

const labelOf = (at) => marks.findLast((m) => m.at <= at + 5)?.label ?? 'setup';
// The dispatcher's claim, which runs beside the requests, wherever it fell.
const claim = entries.filter((e) => /^WITH room AS/.test(e.sql));
const picked = [];
const seen = new Set();
for (const e of entries) {
  const label = labelOf(e.at);
  if (label === 'setup' || label === 'end' || !/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)/.test(e.sql)) continue;
  if (seen.has(e.sql)) continue;
  seen.add(e.sql);
  picked.push({ ...e, label });
}
for (const e of claim.slice(0, 3)) if (!seen.has(e.sql)) picked.push({ ...e, label: 'webhook claim' });

const client = new pg.Client({ connectionString: fresh.url });
await client.connect();
/** A plan's shape: its nodes and the indexes they use, without costs or parameter values. */
const shape = (p) =>
  `${p['Node Type']}${p['Index Name'] ? ` ${p['Index Name']}` : ''}${p['Join Type'] ? ` ${p['Join Type']}` : ''}(${(p.Plans ?? []).map(shape).join(', ')})`;
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const literal = (v) => (v === null ? 'NULL' : `'${String(v).replaceAll("'", "''")}'`);
const schemaOf = (label) => (/posts|MCP/.test(label) ? 'content' : 'commerce');
const rows = [];
for (const e of picked) {
  await client.query(`SET search_path = ${schemaOf(e.label)}`);
  const writes = !/^\s*(SELECT|WITH [\s\S]*\)\s*SELECT)/i.test(e.sql) || /FOR UPDATE/i.test(e.sql);
  const once = async (explainable) => {
    if (writes) await client.query('BEGIN');
    try {
      const r = await client.query(`EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) ${explainable}`);
      const [plan] = r.rows[0]['QUERY PLAN'];
      return { planning: plan['Planning Time'], execution: plan['Execution Time'], plan: plan.Plan };
    } finally {
      if (writes) await client.query('ROLLBACK');
    }
  };
  try {
    const plain = [];
    // EXPLAIN takes no bind parameters: the one-off gets them as literals, untyped as a bound
    // parameter is, so it is planned with their values as svc's unnamed statements were.
    const inlined = e.sql.replace(/\$(\d+)/g, (_, n) => literal(e.params[Number(n) - 1]));
    for (let i = 0; i < 15; i++) plain.push(await once(inlined));
    const name = 'plan_probe';
    await client.query(`DEALLOCATE ALL`);
    await client.query(`PREPARE ${name} AS ${e.sql}`);
    const args = e.params.length ? `(${e.params.map(literal).join(', ')})` : '';
    const prepared = [];
    for (let i = 0; i < 8; i++) prepared.push(await once(`EXECUTE ${name}${args}`));
    const kinds = (await client.query('SELECT generic_plans, custom_plans FROM pg_prepared_statements'))
      .rows[0];
    rows.push({
      label: e.label,
      sql: e.sql.replace(/\s+/g, ' ').slice(0, 90),
      planMs: median(plain.map((p) => p.planning)),
      execMs: median(plain.map((p) => p.execution)),
      preparedPlanMs: prepared.map((p) => p.planning.toFixed(3)).join(' '),
      preparedExecMs: median(prepared.slice(5).map((p) => p.execution)),
      generic: `${kinds.generic_plans} generic / ${kinds.custom_plans} custom`,
      // Did the generic plan (run 8) keep the one-off's plan? Where not, both are printed below.
      same: shape(prepared[7].plan) === shape(plain[0].plan),
      shapes: [shape(plain[0].plan), shape(prepared[7].plan)],
    });
  } catch (err) {
    rows.push({ label: e.label, sql: e.sql.replace(/\s+/g, ' ').slice(0, 90), error: err.message });
  }
}
await client.end();
await fresh.drop();

console.log(`PostgreSQL planning vs execution, ${new Date().toISOString()} (ms, median of 15 one-off runs)`);
console.log(
  '| path | statement | plan | execute | prepared: planning, runs 1-8 | prepared execute (6-8) | plans |',
);
console.log('|---|---|---:|---:|---|---:|---|');
for (const r of rows)
  console.log(
    r.error
      ? `| ${r.label} | \`${r.sql}\` | error: ${r.error} | | | | | |`
      : `| ${r.label} | \`${r.sql}\` | ${r.planMs.toFixed(3)} | ${r.execMs.toFixed(3)} | ${r.preparedPlanMs} | ${r.preparedExecMs.toFixed(3)} | ${r.generic} | ${r.same ? 'yes' : 'no'} |`,
  );
for (const r of rows.filter((r) => r.shapes && !r.same))
  console.log(`\n${r.sql}\n  one-off: ${r.shapes[0]}\n  generic: ${r.shapes[1]}`);
