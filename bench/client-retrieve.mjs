// The commerce client's `checkouts.retrieve` against a raw `fetch` of the same URL, counted as the
// calling process's CPU time per call: on a machine shared with other work, CPU per call holds up
// far better than calls per second. Each way runs in a process of its own (bench/retrieve-loop.mjs),
// in many short rounds, the order turned every round; a way's cost is the median of its per-round
// ratios to the raw fetch's round beside it, so a busy moment falls on both sides of a ratio.
//
// Used by bench/cases/commerce.mjs against svc. Run alone (`node bench/client-retrieve.mjs`) it
// reads from a toy node:http server answering a checkout-sized JSON with svc's headers, pinned to
// the server core: the client's own cost without svc's noise. BENCH_CLIENT_OLD=<another build's
// packages/commerce-client/dist/index.js> adds that build's client, for A/B in the same run.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { LOAD_CPU, pinned, pinSelf, root, SERVER_CPU } from './lib.mjs';
import { TOY_CHECKOUT_ID, toyCheckout } from './toy-checkout.mjs';

const ROUNDS = Number(process.env.BENCH_RETRIEVE_ROUNDS ?? 21);
const PER_ROUND = Number(process.env.BENCH_RETRIEVES ?? 1000);
const clientDist = join(root, 'packages/commerce-client/dist/index.js');

function startLoop(way, target) {
  const config = {
    ...target,
    way,
    clientDist: way === 'client-old' ? process.env.BENCH_CLIENT_OLD : clientDist,
  };
  const [cmd, args] = pinned(LOAD_CPU, process.execPath, [
    join(import.meta.dirname, 'retrieve-loop.mjs'),
    JSON.stringify(config),
  ]);
  const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let waiting;
  child.on('message', (message) => waiting?.(message));
  const next = () => new Promise((resolve) => (waiting = resolve));
  const ready = next();
  return {
    ready,
    async run(n) {
      const answer = next();
      child.send({ n });
      const result = await answer;
      if (!result.ok) throw new Error(`${way}: ${result.error}`);
      return result;
    },
    stop: () => child.kill(),
  };
}

const median = (values) => {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
};
const quartiles = (values) => {
  const v = [...values].sort((a, b) => a - b);
  return [v[Math.floor(v.length / 4)], v[Math.floor((3 * v.length) / 4)]];
};

/**
 * `target`: { url, headers, id, baseUrl, apiKey, userToken }. Returns every round's figures per
 * way: { fetch: [{ rps, cpuUs }, ...], timed: [...], 'node-http': [...], client: [...] (, 'client-old': [...]) }.
 */
export async function measureRetrieve(target) {
  const ways = [
    'fetch',
    'timed',
    'node-http',
    'client',
    ...(process.env.BENCH_CLIENT_OLD ? ['client-old'] : []),
  ];
  const loops = Object.fromEntries(ways.map((way) => [way, startLoop(way, target)]));
  try {
    await Promise.all(Object.values(loops).map((loop) => loop.ready));
    // Warm-up, not counted: the JIT, the connection pool, the server's caches.
    for (const way of ways) await loops[way].run(PER_ROUND * 2);
    const rounds = Object.fromEntries(ways.map((way) => [way, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < ways.length; i++) {
        const way = ways[(i + round) % ways.length];
        rounds[way].push(await loops[way].run(PER_ROUND));
      }
    }
    return rounds;
  } finally {
    for (const loop of Object.values(loops)) loop.stop();
  }
}

/**
 * The case's table rows: CPU µs a call (median), and each way's cost against raw fetch (the
 * goal's baseline) or, for the rows that say so, against the raw node:http GET: the transport
 * the client uses on Node, so that ratio is the client's own overhead over its transport.
 */
export async function retrieveRows(target) {
  const rounds = await measureRetrieve(target);
  const line = (name, way, goal = '', against = 'fetch') => {
    const own = rounds[way];
    const cpu = median(own.map((r) => r.cpuUs));
    const rps = Math.round(median(own.map((r) => r.rps)));
    if (way === 'fetch') return `| ${name} | ${rps} | | | ${cpu.toFixed(0)} | | ${goal} |`;
    const costs = own.map((r, i) => r.cpuUs / rounds[against][i].cpuUs);
    const [lo, hi] = quartiles(costs);
    const label = against === 'fetch' ? 'cost' : `cost over ${against}`;
    return `| ${name} | ${rps} | | | ${cpu.toFixed(0)} | ${label} ${median(costs).toFixed(2)}× (quartiles ${lo.toFixed(2)}-${hi.toFixed(2)}) | ${goal} |`;
  };
  const what = `${ROUNDS} turned rounds of ${PER_ROUND} calls, 16 in flight, each way in its own process; CPU µs a call of that process, median; cost = its CPU ÷ raw fetch's in the same round, median`;
  return [
    line(`raw \`fetch\` of \`GET /v1/checkouts/{id}\` (${what})`, 'fetch'),
    line('raw `fetch` with a per-call timeout (AbortController and timer; information)', 'timed'),
    line('raw keep-alive `node:http` GET, body read and parsed (information)', 'node-http'),
    line('`@svc/commerce-client` `checkouts.retrieve`', 'client', 'cost ≤ 1.1×'),
    line(
      'the same, against the raw `node:http` GET (its own overhead over its transport)',
      'client',
      '',
      'node-http',
    ),
    ...(rounds['client-old']
      ? [line(`the same, the build at ${process.env.BENCH_CLIENT_OLD}`, 'client-old')]
      : []),
  ];
}

/** A checkout-sized answer with svc's headers, from a toy server on the server core. */
async function toyServer() {
  const body = JSON.stringify(toyCheckout());
  const server = createServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'service-request-id': `req_${Math.random().toString(36).slice(2, 14)}`,
      etag: '"c0ffee"',
      'cache-control': 'private, no-cache',
    });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

if (import.meta.filename === process.argv[1]) {
  // The toy server runs in this process, pinned to the server core; the loops to the load core.
  pinSelf(SERVER_CPU);
  const server = await toyServer();
  const base = `http://127.0.0.1:${server.address().port}`;
  const id = TOY_CHECKOUT_ID;
  const headers = { authorization: 'Bearer svc_test_toy', 'service-user-token': 'user-toy' };
  try {
    const rows = await retrieveRows({
      url: `${base}/v1/checkouts/${id}`,
      headers,
      id,
      baseUrl: base,
      apiKey: 'svc_test_toy',
      userToken: 'user-toy',
    });
    for (const line of rows) console.log(line);
  } finally {
    server.close();
  }
}
