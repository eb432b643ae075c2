import { retrieveRows } from '../client-retrieve.mjs';
import {
  apiCall,
  closedLoop,
  currentEngine,
  interleaved,
  keyFor,
  row,
  startBaseline,
  startServer,
} from '../lib.mjs';
import { ADDRESS } from '../toy-checkout.mjs';

const driver = () => (currentEngine() === 'postgres' ? 'pg' : 'better-sqlite3');
/** Issue 20: ≥ 0.9× express on SQLite, ≥ 0.8× on PostgreSQL. */
const goalVsExpress = () => (currentEngine() === 'postgres' ? '≥ 0.8×' : '≥ 0.9×');

const PROTOCOL = 'https://protocol-shop.sandbox.test/products';

const call = apiCall;

/** A sandbox user (no spending rules) and a checkout of theirs ready to confirm. */
export async function userWithCheckouts(base, key, n) {
  const auth = { authorization: `Bearer ${key}` };
  const { public_token } = await call(base, 'POST', '/v1/sandbox/public_token', auth, {});
  const { user_token } = await call(base, 'POST', '/v1/approval_tokens/exchange', auth, { public_token });
  const headers = { ...auth, 'service-user-token': user_token };
  const ids = [];
  for (let i = 0; i < n; i++) {
    const c = await call(base, 'POST', '/v1/checkouts', headers, {
      product_url: `${PROTOCOL}/bench-mug`,
      buyer: { email: 'ada@example.com' },
      shipping_address: ADDRESS,
    });
    if (c.status !== 'ready_to_confirm') throw new Error(`checkout is ${c.status}, not ready_to_confirm`);
    ids.push(c.id);
  }
  return { headers, ids };
}

/**
 * Commerce: `GET /v1/checkouts/{id}` (API key, user token, row) against bare node:http and bare
 * express doing the same lookups; keyed against unkeyed confirm; the commerce client's retrieve
 * against a raw fetch of the same URL.
 */
export default async function commerceBench() {
  const server = await startServer();
  const baselines = [];
  try {
    const key = await keyFor(server.env, ['--service', 'commerce', '--env', 'sandbox', '--name', 'bench']);
    // BENCH_CONFIRM_ONLY=1: the keyed and unkeyed confirms alone, for A/B runs of the keyed confirm.
    if (process.env.BENCH_CONFIRM_ONLY === '1') return await confirmRows(server, key);
    const { headers, ids } = await userWithCheckouts(server.commerce, key, 1);
    // Two pairs of baselines. The (`node`, `express`) SELECT the API key on every request;
    // svc caches keys under the key epoch, so beside them run the same two stacks caching keys as
    // svc does (`-cached`: the same statements per request as svc, the epoch read in the
    // background). The goals are judged against the cached pair, the fair comparison.
    const started = {};
    for (const flavour of ['node', 'express', 'node-cached', 'express-cached']) {
      started[flavour] = await startBaseline(flavour, server);
      baselines.push(started[flavour]);
    }
    const id = ids[0];
    const target = (b) => ({ url: `${b.url}/checkouts/${id}`, headers, pid: b.pid });
    const r = await interleaved({
      node: target(started.node),
      express: target(started.express),
      nodeCached: target(started['node-cached']),
      expressCached: target(started['express-cached']),
      svc: { url: `${server.commerce}/v1/checkouts/${id}`, headers, pid: server.pid },
    });
    const rows = [
      row(`bare \`node:http\` + ${driver()}: key, user token, checkout row`, r.node),
      row('bare express 5: the same lookups, the same JSON', r.express, r.node),
      row('bare `node:http`, keys cached as svc caches them: user token, row', r.nodeCached, r.node),
      row('bare express 5, keys cached as svc caches them', r.expressCached, r.express),
      row('svc `GET /v1/checkouts/{id}` vs express (key SELECTed every request)', r.svc, r.express),
      row('svc `GET /v1/checkouts/{id}` vs node:http (key SELECTed every request)', r.svc, r.node),
      row(
        'svc `GET /v1/checkouts/{id}` vs express, keys cached in both',
        r.svc,
        r.expressCached,
        goalVsExpress(),
      ),
      row('svc `GET /v1/checkouts/{id}` vs node:http, keys cached in both', r.svc, r.nodeCached, '≥ 0.25×'),
    ];
    // BENCH_CHECKOUT_ONLY=1: the GET rows alone, for profiling and A/B runs of the hot path.
    if (process.env.BENCH_CHECKOUT_ONLY === '1') return rows;

    rows.push(...(await confirmRows(server, key)));
    rows.push(...(await clientRows(server.commerce, key, headers, id)));
    return rows;
  } finally {
    for (const b of baselines) await b.stop();
    await server.stop();
  }
}

/**
 * Confirm: each request uses up one ready checkout, so these are closed loops of N confirms from
 * this process (pinned to the load core), keyed and unkeyed alternately in two rounds.
 */
async function confirmRows(server, key) {
  const N = Number(process.env.BENCH_CONFIRMS ?? 300);
  const confirms = await userWithCheckouts(server.commerce, key, 4 * N);
  let next = 0;
  const confirmRun = (keyed) => () =>
    closedLoop(N, 16, server.pid, async () => {
      const cid = confirms.ids[next++];
      await call(server.commerce, 'POST', `/v1/checkouts/${cid}/confirm`, {
        ...confirms.headers,
        ...(keyed ? { 'idempotency-key': `bench-${cid}` } : {}),
      });
    });
  const c = await interleaved({ unkeyed: confirmRun(false), keyed: confirmRun(true) });
  return [
    row(`\`POST …/confirm\` without a key (${N} confirms, 16 in flight)`, c.unkeyed),
    row(
      '`POST …/confirm` with an Idempotency-Key (cost = 1 ÷ this ratio)',
      c.keyed,
      c.unkeyed,
      '≥ 0.87× (cost ≤ 1.15×)',
    ),
  ];
}

/**
 * The client's retrieve against a raw fetch of the same URL with the same headers, each in a
 * process of its own on the load core, counted as CPU time per call (bench/client-retrieve.mjs).
 */
function clientRows(base, key, headers, id) {
  return retrieveRows({
    url: `${base}/v1/checkouts/${id}`,
    headers,
    id,
    baseUrl: base,
    apiKey: key,
    userToken: headers['service-user-token'],
  });
}
