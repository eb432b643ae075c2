import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { currentEngine, interleaved, keyFor, row, startServer } from '../lib.mjs';
import { userWithCheckouts } from './commerce.mjs';

/**
 * Scale: the same reads at 10,000 rows and at BENCH_SCALE_ROWS (1,000,000) checkouts and posts,
 * on one server, with its RSS. The rows are copies of one real checkout and one real demo post,
 * written by one INSERT … SELECT over a generated series per step (not through the API), with
 * fresh ids and the unique columns (confirm token, slot) left empty. Goal: p50 at the large size
 * within 1.2× of the small one (the reads use their indexes), RSS ≤ 200 MB.
 */
const SMALL = 10_000;
const LARGE = Number(process.env.BENCH_SCALE_ROWS ?? 1_000_000);
const NULLED = new Set(['confirm_token_hash', 'slot_hour']);

/** Copies the row `id` of `table` `n` times with ids `<id>x<i>`; one statement per engine. */
export async function copies(db, table, id, from, n) {
  const cols = await db.columns(table);
  const list = cols.map((c) => (c === 'id' ? db.idExpr : NULLED.has(c) ? 'NULL' : `t.${c}`)).join(', ');
  await db.exec(
    `INSERT INTO ${table} (${cols.join(', ')}) ${db.series(from, from + n - 1)} SELECT ${list} FROM ${table} t, s WHERE t.id = '${id}'`,
  );
}

export function sqlite(file) {
  const db = new Database(file);
  db.pragma('busy_timeout = 60000');
  return {
    columns: async (table) => db.pragma(`table_info(${table})`).map((c) => c.name),
    idExpr: "t.id || 'x' || s.i",
    series: (a, b) => `WITH RECURSIVE s(i) AS (SELECT ${a} UNION ALL SELECT i + 1 FROM s WHERE i < ${b})`,
    // The copies go through the WAL; fold it into the database file before measuring, or the
    // server's next write would pay for checkpointing a WAL of the whole seed.
    exec: async (sql) => {
      db.exec(sql);
      db.pragma('wal_checkpoint(TRUNCATE)');
    },
    close: async () => db.close(),
  };
}

function postgres(url, schema) {
  const pool = new pg.Pool({ connectionString: url, max: 1, options: `-c search_path=${schema}` });
  return {
    columns: async (table) =>
      (
        await pool.query(
          'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
          [schema, table],
        )
      ).rows.map((r) => r.column_name),
    idExpr: "t.id || 'x' || s.i",
    series: (a, b) => `WITH s(i) AS (SELECT generate_series(${a}, ${b}))`,
    // VACUUM as well as ANALYZE: since PostgreSQL 13 a million inserted rows start autovacuum,
    // which would otherwise be free to run through the large rounds on the same two cores (in the
    // sixth pass's first run the 1M reads were 1.4-2.3× slower at the same server CPU per request;
    // autovacuum is the likely cause, not a proven one).
    exec: async (sql) => {
      await pool.query(sql);
      await pool.query('VACUUM ANALYZE');
    },
    close: () => pool.end(),
  };
}

const k = (n) => `${n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`}`;

const rssMb = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
};

/**
 * `opts.env` and `opts.nodeArgs` start the server another way (bench/rss-breakdown.mjs preloads
 * a memory probe); `opts.at(point, server)` runs at each of the three RSS points, after the RSS is read.
 */
export default async function scaleBench(opts = {}) {
  const server = await startServer(opts.env, { nodeArgs: opts.nodeArgs });
  const at = async (point) => opts.at?.(point, server);
  const open = (schema, file) =>
    currentEngine() === 'postgres'
      ? postgres(server.databaseUrl, schema)
      : sqlite(join(server.dataDir, file));
  const commerceDb = open('commerce', 'commerce.sqlite');
  const contentDb = open('content', 'content.sqlite');
  try {
    const key = await keyFor(server.env, ['--service', 'commerce', '--env', 'sandbox', '--name', 'bench']);
    const { headers, ids } = await userWithCheckouts(server.commerce, key, 1);
    const brandId = (await (await fetch(`${server.content}/v1/brands`)).json()).brands[0].id;
    const page = await (await fetch(`${server.content}/v1/posts?brand_id=${brandId}&limit=20`)).json();
    // A settled post: its copies are done growing, so the background pass leaves them alone.
    const postId = page.posts.find((p) => p.settled_at !== null).id;
    const targets = {
      checkout: { url: `${server.commerce}/v1/checkouts/${ids[0]}`, headers, pid: server.pid },
      post: { url: `${server.content}/v1/posts/${postId}`, pid: server.pid },
      list: { url: `${server.content}/v1/posts?brand_id=${brandId}&limit=20`, pid: server.pid },
    };
    const grow = async (from, n) => {
      const started = performance.now();
      await copies(commerceDb, 'checkouts', ids[0], from, n);
      await copies(contentDb, 'posts', postId, from, n);
      return (performance.now() - started) / 1000;
    };
    // RSS at three points, to tell what the rows cost from what serving costs: idle after start,
    // after the reads at the small size, after the reads at the large size.
    const idle = rssMb(server.pid);
    await at('idle');
    await grow(1, SMALL);
    const small = await interleaved(targets);
    const smallMem = rssMb(server.pid);
    await at(k(SMALL));
    const seconds = await grow(SMALL + 1, LARGE - SMALL);
    const large = await interleaved(targets);
    const mem = rssMb(server.pid);
    await at(k(LARGE));
    const pair = (what, name, key) => [
      row(`${k(SMALL)} ${what}: ${name}`, small[key]),
      row(
        `${k(LARGE)} ${what}: the same; p50 ${(large[key].p50 / small[key].p50).toFixed(2)}× the ${k(SMALL)} p50 (ratio column: req/s)`,
        large[key],
        small[key],
        'p50 ≤ 1.2×',
      ),
    ];
    return [
      ...pair('checkouts', '`GET /v1/checkouts/{id}`', 'checkout'),
      ...pair('posts', '`GET /v1/posts/{id}`', 'post'),
      ...pair('posts', 'first page, `GET /v1/posts?brand_id=…&limit=20`', 'list'),
      `| server RSS idle after start (peak) | | ${idle.rss.toFixed(0)} MB | ${idle.peak.toFixed(0)} MB | | | |`,
      `| server RSS after the reads at ${k(SMALL)} rows (peak) | | ${smallMem.rss.toFixed(0)} MB | ${smallMem.peak.toFixed(0)} MB | | | |`,
      `| server RSS with ${k(LARGE)} checkouts and ${k(LARGE)} posts (peak) | | ${mem.rss.toFixed(0)} MB | ${mem.peak.toFixed(0)} MB | | | ≤ 200 MB |`,
      `| (seeding ${k(LARGE - SMALL)} of each took ${seconds.toFixed(0)} s) | | | | | | |`,
    ];
  } finally {
    await commerceDb.close();
    await contentDb.close();
    await server.stop();
  }
}
