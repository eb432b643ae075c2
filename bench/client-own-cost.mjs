#!/usr/bin/env node
// `node bench/client-own-cost.mjs`: what the commerce client's own code costs a `checkouts.retrieve`,
// with the network taken out. The global `fetch` is replaced by one that answers at once with a
// checkout-sized JSON Response, so a call is the client's work plus building and reading that
// Response, and `fetch` + `res.json()` against the same stand-in is the baseline. With no socket,
// no server and no undici request, the difference is steady even on a shared machine, where the
// same comparison over real HTTP (bench/client-retrieve.mjs) moves by ±10% a round.
//
// Prints each client's CPU µs a call and its extra over the baseline (median of the rounds'
// differences; the order turns every round). BENCH_CLIENT_OLD=<another build's
// packages/commerce-client/dist/index.js> adds that build, for A/B in the same run.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pinSelf, root } from './lib.mjs';
import { TOY_CHECKOUT_ID, toyCheckout } from './toy-checkout.mjs';

pinSelf();
const ROUNDS = Number(process.env.BENCH_OWN_ROUNDS ?? 9);
const PER_ROUND = Number(process.env.BENCH_OWN_CALLS ?? 20_000);

const body = new TextEncoder().encode(JSON.stringify(toyCheckout()));
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(body.length),
  'service-request-id': 'req_own_cost',
  etag: '"c0ffee"',
};
const base = 'http://127.0.0.1:9';
const id = TOY_CHECKOUT_ID;
const url = `${base}/v1/checkouts/${id}`;
const ways = {
  'fetch + res.json()': async () => {
    const res = await fetch(url, { headers: { authorization: 'Bearer k', 'service-user-token': 'u' } });
    await res.json();
  },
};
const builds = {
  'this build': join(root, 'packages/commerce-client/dist/index.js'),
  ...(process.env.BENCH_CLIENT_OLD ? { [process.env.BENCH_CLIENT_OLD]: process.env.BENCH_CLIENT_OLD } : {}),
};
for (const [name, dist] of Object.entries(builds)) {
  const { CommerceClient } = await import(pathToFileURL(dist).href);
  const client = new CommerceClient({ apiKey: 'k', baseUrl: base, userToken: 'u' });
  ways[name] = () => client.checkouts.retrieve(id);
}
// Replaced only now, after the clients loaded: on Node a client takes node:http while the global
// fetch is the one it saw load, and a fetch replaced since sends its calls through that fetch,
// as here. So this measures the client's own code on its fetch path, as before; its own code on
// the node:http path is client-retrieve.mjs's row against a raw node:http GET.
globalThis.fetch = async () => new Response(body, { status: 200, headers });

async function run(call) {
  let next = 0;
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < PER_ROUND) {
        next++;
        await call();
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / PER_ROUND;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const names = Object.keys(ways);
const rounds = Object.fromEntries(names.map((name) => [name, []]));
for (const name of names) await run(ways[name]); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < names.length; i++) {
    const name = names[(i + round) % names.length];
    rounds[name].push(await run(ways[name]));
  }
}
const baseline = rounds[names[0]];
console.log(`${ROUNDS} turned rounds of ${PER_ROUND} calls, 16 in flight, fetch answered at once in-process`);
for (const name of names) {
  const extra = median(rounds[name].map((us, i) => us - baseline[i]));
  console.log(
    `${name}: ${median(rounds[name]).toFixed(1)} µs a call` +
      (name === names[0] ? '' : `, ${extra.toFixed(1)} µs over ${names[0]}`),
  );
}
