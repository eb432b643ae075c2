import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { apiCall, closedLoop, currentEngine, interleaved, row, startServer } from '../lib.mjs';

/**
 * A brand with years of snapshots: the demo brand's settled posts copied, each copy 8 weeks
 * further back (same weekday and hour), with their snapshots, until it has BENCH_SNAPSHOTS (20,000) snapshots, then its stored baselines recomputed as the
 * server's seed does (services/baselines.ts). Measures, one request at a time, the readers that
 * once read every snapshot of the brand: best times, the overview, a digest, the outcomes
 * endpoint, and resolving one post. Each row is the same request on the demo brand as it was
 * seeded (~400 snapshots) and on the large one; the ratio column is large ÷ small in server CPU.
 */
const TARGET = Number(process.env.BENCH_SNAPSHOTS ?? 20_000);
const CALLS = Number(process.env.BENCH_SNAPSHOT_CALLS ?? 10);
const AGES = [1, 3, 6, 12, 24, 48, 72];

function sqlite(file) {
  const db = new Database(file);
  db.pragma('busy_timeout = 60000');
  return {
    all: async (sql, params = []) => db.prepare(sql).all(...params),
    run: async (sql, params = []) => {
      db.prepare(sql).run(...params);
    },
    series: (n) => `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ${n})`,
    weeksBefore: (col, weeks) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${col}, '-' || (${weeks} * 7) || ' days')`,
    done: async () => db.pragma('wal_checkpoint(TRUNCATE)'),
    close: async () => db.close(),
  };
}

function postgres(url) {
  const pool = new pg.Pool({ connectionString: url, max: 1, options: '-c search_path=content' });
  let i = 0;
  const numbered = (sql) => sql.replace(/\?/g, () => `$${++i}`);
  return {
    all: async (sql, params = []) => {
      i = 0;
      return (await pool.query(numbered(sql), params)).rows;
    },
    run: async (sql, params = []) => {
      i = 0;
      await pool.query(numbered(sql), params);
    },
    series: (n) => `WITH s(i) AS (SELECT generate_series(1, ${n}))`,
    weeksBefore: (col, weeks) =>
      `to_char((${col}::timestamptz - ${weeks} * interval '7 days') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
    done: () => pool.query('ANALYZE'),
    close: () => pool.end(),
  };
}

/** Copies the brand's settled posts and their snapshots `copies` times, then rebuilds its baselines. */
async function grow(db, brandId, copies) {
  const cols = (await db.all('SELECT * FROM posts WHERE brand_id = ? LIMIT 1', [brandId]))[0];
  const list = Object.keys(cols)
    .map((c) =>
      c === 'id'
        ? "t.id || 'x' || s.i"
        : c === 'slot_hour'
          ? 'NULL'
          : // Copy i goes out 8·i weeks earlier, on the same weekday and hour: years of history.
            ['published_at', 'sort_at', 'settled_at', 'created_at', 'updated_at'].includes(c)
            ? db.weeksBefore(`t.${c}`, '8 * s.i')
            : `t.${c}`,
    )
    .join(', ');
  await db.run(
    `INSERT INTO posts (${Object.keys(cols).join(', ')}) ${db.series(copies)}
     SELECT ${list} FROM posts t, s WHERE t.brand_id = ? AND t.status = 'published' AND t.settled_at IS NOT NULL`,
    [brandId],
  );
  await db.run(
    `INSERT INTO post_metrics (post_id, age_h, taken_at, impressions, likes, comments, shares, clicks) ${db.series(copies)}
     SELECT m.post_id || 'x' || s.i, m.age_h, m.taken_at, m.impressions, m.likes, m.comments, m.shares, m.clicks
       FROM post_metrics m JOIN posts t ON t.id = m.post_id, s
      WHERE t.brand_id = ? AND t.status = 'published' AND t.settled_at IS NOT NULL`,
    [brandId],
  );
  // What rebuildBaselines computes: per platform, the posts with a snapshot and, per standard
  // age, the sorted engagements.
  const snaps = await db.all(
    `SELECT m.post_id, m.age_h, m.likes + m.comments + m.shares + m.clicks AS e, p.platform
       FROM post_metrics m JOIN posts p ON p.id = m.post_id
      WHERE p.brand_id = ? AND p.status = 'published'`,
    [brandId],
  );
  const baselines = {};
  const seen = new Set();
  for (const s of snaps) {
    const b = baselines[s.platform] ?? { posts: 0, curve: {} };
    baselines[s.platform] = b;
    if (!seen.has(s.post_id)) b.posts++;
    seen.add(s.post_id);
    const age = Number(s.age_h);
    if (!AGES.includes(age)) continue;
    const values = b.curve[String(age)] ?? [];
    b.curve[String(age)] = values;
    values.push(Number(s.e));
  }
  for (const b of Object.values(baselines)) for (const v of Object.values(b.curve)) v.sort((x, y) => x - y);
  await db.run('UPDATE brand_baselines SET baselines = ? WHERE brand_id = ?', [
    JSON.stringify(baselines),
    brandId,
  ]);
  await db.done();
  return snaps.length;
}

export default async function snapshotsBench() {
  const server = await startServer();
  const db =
    currentEngine() === 'postgres'
      ? postgres(server.databaseUrl)
      : sqlite(join(server.dataDir, 'content.sqlite'));
  try {
    const base = server.content;
    const brandId = (await apiCall(base, 'GET', '/v1/brands')).brands[0].id;
    const settled = await db.all(
      "SELECT id FROM posts WHERE brand_id = ? AND status = 'published' AND settled_at IS NOT NULL ORDER BY id LIMIT 1",
      [brandId],
    );
    const postId = settled[0].id;
    const calls = {
      best: () => apiCall(base, 'GET', `/v1/brands/${brandId}/best-times`),
      overview: () => apiCall(base, 'GET', `/v1/insights/overview?brand_id=${brandId}&days=28`),
      digest: () => apiCall(base, 'POST', `/v1/brands/${brandId}/digest`, {}, { days: 7 }),
      outcomes: () => apiCall(base, 'POST', `/v1/brands/${brandId}/outcomes`),
      resolve: () => apiCall(base, 'POST', `/v1/posts/${postId}/resolve`),
    };
    const measure = () =>
      interleaved(
        Object.fromEntries(
          Object.entries(calls).map(([k, call]) => [k, () => closedLoop(CALLS, 1, server.pid, call)]),
        ),
      );
    const before = (
      await db.all(
        "SELECT COUNT(*) AS n FROM post_metrics m JOIN posts p ON p.id = m.post_id WHERE p.brand_id = ? AND p.status = 'published'",
        [brandId],
      )
    )[0].n;
    const small = await measure();
    const perCopy = (
      await db.all(
        `SELECT COUNT(*) AS n FROM post_metrics m JOIN posts p ON p.id = m.post_id
        WHERE p.brand_id = ? AND p.status = 'published' AND p.settled_at IS NOT NULL`,
        [brandId],
      )
    )[0].n;
    const snapshots = await grow(db, brandId, Math.ceil((TARGET - Number(before)) / Number(perCopy)));
    const large = await measure();
    const names = {
      best: '`GET /v1/brands/{id}/best-times`',
      overview: '`GET /v1/insights/overview?brand_id=…&days=28`',
      digest: '`POST /v1/brands/{id}/digest` (7 days)',
      outcomes: '`POST /v1/brands/{id}/outcomes`',
      resolve: '`POST /v1/posts/{id}/resolve` (settled)',
    };
    return Object.keys(calls).map((k) =>
      row(
        `${names[k]}, ${snapshots.toLocaleString('en')} snapshots vs ${Number(before)} (ratio: CPU at ${Number(before)} ÷ CPU here)`,
        large[k],
        small[k],
      ),
    );
  } finally {
    await db.close();
    await server.stop();
  }
}
