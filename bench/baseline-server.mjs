// The baselines: what the same request costs with nothing but the bare stack and better-sqlite3
// over the server's own database files. `node bench/baseline-server.mjs <node|express> <dataDir>`.
// The same lookups and the same JSON as svc; no validation, no error shape, no logging.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';

const [flavour, dataDir] = process.argv.slice(2);
const open = (file) => {
  const db = new Database(join(dataDir, file));
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  return db;
};
const commerce = open('commerce.sqlite');
const content = open('content.sqlite');
const sha256 = (s) => createHash('sha256').update(s).digest('hex');

const findKey = commerce.prepare(
  'SELECT id, account_id, env, name FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
);
const findUser = commerce.prepare(
  'SELECT user_id, account_id, env, rules FROM user_tokens WHERE token_hash = ? AND revoked_at IS NULL',
);
const findCheckout = commerce.prepare(
  'SELECT * FROM checkouts WHERE id = ? AND account_id = ? AND env = ? AND user_id = ?',
);
const parse = (v) => (v == null ? null : JSON.parse(v));

/** GET /checkouts/:id — API key, user token, row; the Checkout JSON svc answers with. */
function checkout(id, authorization, userToken) {
  const key = findKey.get(sha256(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? ''));
  if (!key) return [401, { error: 'unauthorized' }];
  const user = findUser.get(sha256(userToken ?? ''));
  if (!user || user.account_id !== key.account_id || user.env !== key.env) return [401, { error: 'user' }];
  const c = findCheckout.get(id, key.account_id, key.env, user.user_id);
  if (!c) return [404, { error: 'not found' }];
  return [
    200,
    {
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
      requires_user_confirmation: c.requires_user_confirmation === 1,
      user_confirmed_at: c.user_confirmed_at,
      order_id: c.order_id,
      error: parse(c.error),
      merchant_messages: parse(c.merchant_messages),
      created_at: c.created_at,
      updated_at: c.updated_at,
    },
  ];
}

const pagePosts = content.prepare(
  'SELECT * FROM posts WHERE brand_id = ? ORDER BY sort_at DESC, id DESC LIMIT ?',
);
const latestMetrics = content.prepare(
  'SELECT * FROM post_metrics WHERE post_id = ? ORDER BY age_h DESC LIMIT 1',
);

/** GET /posts?brand_id=…&limit=20 — the page of posts, each with its latest metrics. No verdicts. */
function posts(brandId, limit) {
  const rows = pagePosts.all(brandId, Math.min(Number(limit) || 20, 100));
  return [
    200,
    {
      posts: rows.map((p) => {
        const m = latestMetrics.get(p.id);
        return {
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
        };
      }),
      has_more: rows.length === limit,
    },
  ];
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
  app.get('/health', (_req, res) => res.json({ ok: true }));
  app.get('/checkouts/:id', (req, res) => {
    const [status, body] = checkout(req.params.id, req.headers.authorization, req.get('service-user-token'));
    res.status(status).json(body);
  });
  app.get('/posts', (req, res) => {
    const [status, body] = posts(req.query.brand_id, Number(req.query.limit ?? 20));
    res.status(status).json(body);
  });
  server = app.listen(0, '127.0.0.1');
} else {
  server = createServer((req, res) => {
    const [status, body] = route(req.method, req.url, req.headers);
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }).listen(0, '127.0.0.1');
}
server.on('listening', () => process.stdout.write(`baseline http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections?.();
});
