// The baselines: what the same request costs with nothing but the bare stack and the database
// driver over the server's own data. `node bench/baseline-server.mjs <node|express>[-cached] <dataDir>`
// reads the SQLite files with better-sqlite3; with `BASELINE_DATABASE_URL` set it reads the same
// PostgreSQL database as svc (schemas `commerce` and `content`) with `pg`, one pool per schema of
// svc's default size. The same lookups and the same JSON as svc; no validation, no error shape,
// no logging. The `-cached` flavours keep API keys the way svc does (see `cachedKeys`), so svc is
// also compared with a bare server doing the same database work per request, not more.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import pg from 'pg';

const [flavourArg, dataDir] = process.argv.slice(2);
const flavour = flavourArg.replace(/-cached$/, '');
const cachingKeys = flavourArg.endsWith('-cached');
const pgUrl = process.env.BASELINE_DATABASE_URL;
const sha256 = (s) => createHash('sha256').update(s).digest('hex');
const parse = (v) => (v == null ? null : JSON.parse(v));

const SQL = {
  key: 'SELECT id, account_id, env, name FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
  user: 'SELECT user_id, account_id, env, rules FROM user_tokens WHERE token_hash = ? AND revoked_at IS NULL',
  checkout: 'SELECT * FROM checkouts WHERE id = ? AND account_id = ? AND env = ? AND user_id = ?',
  page: 'SELECT * FROM posts WHERE brand_id = ? ORDER BY sort_at DESC, id DESC LIMIT ?',
  latest: 'SELECT * FROM post_metrics WHERE post_id = ? ORDER BY age_h DESC LIMIT 1',
  // The key cache's statements, as svc's stores write them (platform/db/key-epoch-store.ts,
  // commerce/db/api-keys-store.ts); `{now}` is the database's clock, spelt per engine.
  cachedKey:
    'SELECT id, account_id, env, name, last_used_at FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
  touch: 'UPDATE api_keys SET last_used_at = ? WHERE id = ?',
  epoch: 'SELECT MAX(epoch) AS epoch FROM key_epoch',
  acknowledge: `INSERT INTO key_epoch_instances (instance, seen_epoch, heartbeat_at) VALUES (?, ?, {now})
    ON CONFLICT (instance) DO UPDATE SET seen_epoch = excluded.seen_epoch, heartbeat_at = excluded.heartbeat_at`,
  forget: 'DELETE FROM key_epoch_instances WHERE instance = ?',
};
const NOW = {
  sqlite: "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')",
  postgres: `to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
};

/**
 * The lookups, per engine. SQLite's are synchronous (better-sqlite3, prepared once), as a bare
 * node:http + better-sqlite3 service would write them; PostgreSQL's are single queries through a
 * pool, the page of posts joined with each post's latest snapshot in one round trip.
 */
function sqliteLookups() {
  const open = (file) => {
    const db = new Database(join(dataDir, file));
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    return db;
  };
  const commerce = open('commerce.sqlite');
  const content = open('content.sqlite');
  const [key, user, checkout] = [SQL.key, SQL.user, SQL.checkout].map((s) => commerce.prepare(s));
  const [page, latest] = [SQL.page, SQL.latest].map((s) => content.prepare(s));
  const [cachedKey, touch, epoch, acknowledge, forget] = [
    SQL.cachedKey,
    SQL.touch,
    SQL.epoch,
    SQL.acknowledge.replace('{now}', NOW.sqlite),
    SQL.forget,
  ].map((s) => commerce.prepare(s));
  return {
    key: (hash) => key.get(hash),
    cachedKey: (hash) => cachedKey.get(hash),
    touch: (...args) => touch.run(...args),
    epoch: () => Number(epoch.get().epoch ?? 0),
    acknowledge: (...args) => acknowledge.run(...args),
    forget: (instance) => forget.run(instance),
    user: (hash) => user.get(hash),
    checkout: (...args) => checkout.get(...args),
    posts: (brandId, limit) => page.all(brandId, limit).map((p) => [p, latest.get(p.id)]),
  };
}

function pgLookups() {
  const pool = (schema) => {
    const p = new pg.Pool({ connectionString: pgUrl, max: 10, options: `-c search_path=${schema}` });
    p.on('error', () => undefined);
    return p;
  };
  const commerce = pool('commerce');
  const content = pool('content');
  const numbered = (sql) => {
    let n = 0;
    return sql.replace(/\?/g, () => `$${++n}`);
  };
  const one = (db, sql) => {
    const text = numbered(sql);
    return async (...values) => (await db.query(text, values)).rows[0];
  };
  const pagePosts = numbered(
    `SELECT p.*, row_to_json(m) AS latest FROM (${SQL.page}) p
     LEFT JOIN LATERAL (SELECT * FROM post_metrics WHERE post_id = p.id ORDER BY age_h DESC LIMIT 1) m ON true
     ORDER BY p.sort_at DESC, p.id DESC`,
  );
  return {
    key: one(commerce, SQL.key),
    cachedKey: one(commerce, SQL.cachedKey),
    touch: one(commerce, SQL.touch),
    epoch: async () => Number((await one(commerce, SQL.epoch)())?.epoch ?? 0),
    acknowledge: one(commerce, SQL.acknowledge.replace('{now}', NOW.postgres)),
    forget: one(commerce, SQL.forget),
    user: one(commerce, SQL.user),
    checkout: one(commerce, SQL.checkout),
    posts: async (brandId, limit) =>
      (await content.query(pagePosts, [brandId, limit])).rows.map((p) => [p, p.latest]),
  };
}

const lookups = pgUrl ? pgLookups() : sqliteLookups();

/**
 * svc's commerce key cache (platform/key-cache.ts over epoch-lease-cache.ts), cut to what it does
 * to the database: a key found is kept by hash and answered with no statement while the lease is
 * fresh; every 0.5 s the epoch is read (and the cache dropped and the new epoch acknowledged when
 * it moved), which extends the lease to 2 s after the read was sent; the instance's row is
 * rewritten every 5 s; a key's use is stamped once a minute. The same statements svc makes, at
 * the same rates, so the only difference left per request is svc's own code.
 */
function cachedKeys(db) {
  const instance = `bench-baseline-${process.pid}`;
  const entries = new Map();
  let epoch = -1;
  let leaseUntil = 0;
  let lastBeat = Number.NEGATIVE_INFINITY;
  let renewing = false;
  const renew = async () => {
    if (renewing) return;
    renewing = true;
    try {
      if (performance.now() - lastBeat >= 5_000) {
        const sent = performance.now();
        await db.acknowledge(instance, epoch);
        lastBeat = sent;
      }
      const sent = performance.now();
      const now = await db.epoch();
      if (now !== epoch) {
        leaseUntil = 0;
        entries.clear();
        epoch = now;
        await db.acknowledge(instance, epoch);
        lastBeat = sent;
      }
      leaseUntil = sent + 2_000;
    } catch {
      leaseUntil = 0;
    } finally {
      renewing = false;
    }
  };
  void renew();
  setInterval(renew, 500).unref();
  /** Stamps the key's use when the last stamp is a minute old (lastUsedIsStale), and caches it. */
  const stamped = (hash, k) => {
    const now = new Date();
    if (k.last_used_at !== null && now.getTime() - Date.parse(k.last_used_at) < 60_000) return k;
    const at = now.toISOString();
    const fresh = { ...k, last_used_at: at };
    return chain(db.touch(at, k.id), [
      () => {
        entries.set(hash, fresh);
        return fresh;
      },
    ]);
  };
  return {
    ...db,
    key: (hash) => {
      const hit = performance.now() < leaseUntil ? entries.get(hash) : undefined;
      if (hit) return stamped(hash, hit);
      return chain(db.cachedKey(hash), [
        (k) => {
          if (!k) return k;
          entries.set(hash, k);
          return stamped(hash, k);
        },
      ]);
    },
    forgetSelf: () => db.forget(instance),
  };
}

const db = cachingKeys ? cachedKeys(lookups) : lookups;

/** Runs `steps` (each takes the previous step's result), awaiting only when a step returns a promise. */
function chain(value, steps) {
  for (let i = 0; i < steps.length; i++) {
    if (value instanceof Promise) return value.then((v) => chain(v, steps.slice(i)));
    value = steps[i](value);
  }
  return value;
}

const checkoutJson = (c) => ({
  id: c.id,
  user_id: c.user_id,
  merchant_id: c.merchant_id,
  offer_id: c.offer_id,
  product_url: c.product_url,
  route: c.route,
  status: c.status,
  line_items: parse(c.line_items),
  totals: parse(c.totals),
  buyer: parse(c.buyer),
  shipping_address: parse(c.shipping_address),
  next_action: c.status === 'requires_user_action' ? parse(c.next_action) : null,
  requires_user_confirmation: c.requires_user_confirmation === 1 || c.requires_user_confirmation === true,
  user_confirmed_at: c.user_confirmed_at,
  order_id: c.order_id,
  error: parse(c.error),
  merchant_messages: parse(c.merchant_messages),
  created_at: c.created_at,
  updated_at: c.updated_at,
});

/** GET /checkouts/:id — API key, user token, row; the Checkout JSON svc answers with. */
function checkout(id, authorization, userToken) {
  let key;
  return chain(db.key(sha256(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '')), [
    (k) => {
      key = k;
      return k ? db.user(sha256(userToken ?? '')) : undefined;
    },
    (user) => {
      if (!key || !user || user.account_id !== key.account_id || user.env !== key.env) return undefined;
      return db.checkout(id, key.account_id, key.env, user.user_id);
    },
    (c) => (c ? [200, checkoutJson(c)] : [key ? 404 : 401, { error: key ? 'not found' : 'unauthorized' }]),
  ]);
}

const postJson = (p, m) => ({
  id: p.id,
  brand_id: p.brand_id,
  channel_id: p.channel_id,
  platform: p.platform,
  status: p.status,
  parts: parse(p.parts),
  draft_id: p.draft_id,
  draft_version: p.draft_version,
  idea_id: p.idea_id,
  scheduled_for: p.scheduled_for,
  published_at: p.published_at,
  permalink: p.permalink,
  failure: p.failure,
  metrics: m
    ? {
        age_h: m.age_h,
        impressions: m.impressions,
        likes: m.likes,
        comments: m.comments,
        shares: m.shares,
        clicks: m.clicks,
        engagements: m.likes + m.comments + m.shares + m.clicks,
      }
    : null,
  settled_at: p.settled_at,
  created_at: p.created_at,
  updated_at: p.updated_at,
});

/** GET /posts?brand_id=…&limit=20 — the page of posts, each with its latest metrics. No verdicts. */
function posts(brandId, limit) {
  const n = Math.min(Number(limit) || 20, 100);
  return chain(db.posts(brandId, n), [
    (rows) => [200, { posts: rows.map(([p, m]) => postJson(p, m)), has_more: rows.length === n }],
  ]);
}

function route(method, url, headers) {
  const u = new URL(url, 'http://x');
  if (method === 'GET' && u.pathname === '/health') return [200, { ok: true }];
  const m = /^\/checkouts\/([^/]+)$/.exec(u.pathname);
  if (method === 'GET' && m) return checkout(m[1], headers.authorization, headers['service-user-token']);
  if (method === 'GET' && u.pathname === '/posts')
    return posts(u.searchParams.get('brand_id'), Number(u.searchParams.get('limit') ?? 20));
  return [404, { error: 'not found' }];
}

let server;
if (flavour === 'express') {
  const app = express();
  const send = (res) => (answer) => chain(answer, [([status, body]) => res.status(status).json(body)]);
  app.get('/health', (_req, res) => res.json({ ok: true }));
  app.get('/checkouts/:id', (req, res) =>
    send(res)(checkout(req.params.id, req.headers.authorization, req.get('service-user-token'))),
  );
  app.get('/posts', (req, res) => send(res)(posts(req.query.brand_id, Number(req.query.limit ?? 20))));
  server = app.listen(0, '127.0.0.1');
} else {
  server = createServer((req, res) => {
    chain(route(req.method, req.url, req.headers), [
      ([status, body]) => {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(text),
        });
        res.end(text);
      },
    ]);
  }).listen(0, '127.0.0.1');
}
server.on('listening', () => process.stdout.write(`baseline http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => {
  // The cached flavours' instance row goes with them, as svc's does on a clean stop.
  server.close(() => Promise.resolve(db.forgetSelf?.()).finally(() => process.exit(0)));
  server.closeAllConnections?.();
});
