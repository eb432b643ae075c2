#!/usr/bin/env node
// `pnpm bench:hostile [shape] [kib…]`: how long one live offer request takes against a store
// serving a hostile product page, and how long the event loop was held meanwhile (the longest gap
// between two answers of `GET /v1/health`, polled every 10 ms while the offer runs). Figures only,
// never assertions: the tests prove the linear bound with work counters
// (packages/server/test/commerce/product-page-hostile.test.ts). Run against the built server, so
// `pnpm build` first (this script does not build, to let you measure an older dist).
// BENCH_ITEM_REF=<ref> sends it as `item_ref` (a variant the page does not list: the refusal).
// With BENCH_POSTGRES_URL set it runs on PostgreSQL beside SQLite (BENCH_ENGINES picks one).
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { ENGINES, keyFor, startServer, useEngine } from './lib.mjs';

/** Each shape fills `bytes` with one kind of hostile markup. */
const SHAPES = {
  'meta-tags': (bytes) => repeat('<meta property="og:price:amount" content="19.99">', bytes),
  'distinct-meta-prices': (bytes) => {
    const parts = ['<meta property="og:price:currency" content="USD">'];
    let size = parts[0].length;
    for (let i = 1; size < bytes; i++) {
      const tag = `<meta property="og:price:amount" content="${i}.00">`;
      parts.push(tag);
      size += tag.length;
    }
    return parts.join('');
  },
  'nested-tags': (bytes) => {
    const n = Math.floor(bytes / 8);
    return `${'<a>'.repeat(n)}${'</b>'.repeat(n)}`;
  },
  'json-ld-variants': (bytes) => {
    const offers = [];
    let size = 0;
    for (let i = 0; size < bytes - 200; i++) {
      const o = `{"@type":"Offer","sku":"S${i}","price":"${i}.00","priceCurrency":"USD"}`;
      offers.push(o);
      size += o.length + 1;
    }
    return `<script type="application/ld+json">{"@type":"Product","name":"Mug","offers":[${offers.join(',')}]}</script>`;
  },
  'zero-price': (bytes) =>
    `<script type="application/ld+json">{"@type":"Product","name":"Mug","offers":{"price":"1.${'0'.repeat(bytes - 200)}1","priceCurrency":"USD"}}</script>`,
};

function repeat(unit, bytes) {
  return unit.repeat(Math.floor(bytes / unit.length));
}

const [shapeArg, ...sizeArgs] = process.argv.slice(2);
const shapes = shapeArg ? [shapeArg] : Object.keys(SHAPES);
const sizesKib = sizeArgs.length ? sizeArgs.map(Number) : [384, 768, 1536, 3064];

const itemRef = process.env.BENCH_ITEM_REF;

const pages = new Map();
const store = createServer((req, res) => {
  const body = pages.get(new URL(req.url ?? '/', 'http://local').pathname);
  res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
  res.end(body ?? 'not found');
});
await new Promise((r) => store.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${store.address().port}`;

console.log(
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString()}, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (const engine of ENGINES) {
  useEngine(engine);
  await measure(engine);
}
store.close();
console.log(
  `load at the end ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);

async function measure(engine) {
  const server = await startServer({ SERVICE_STORES_ALLOW_PRIVATE: '1' });
  try {
    const key = await keyFor(server.env, ['--service', 'commerce', '--env', 'live', '--name', 'bench']);
    console.log(`\n${engine}\n`);
    console.log('| page | size | offer answer | offer ms | longest /health gap ms |');
    console.log('|---|---:|---|---:|---:|');
    for (const shape of shapes) {
      for (const kib of sizesKib) {
        const path = `/p/${shape}-${kib}`;
        pages.set(
          path,
          `<!doctype html><html><head><title>Mug</title>${SHAPES[shape](kib * 1024)}</head></html>`,
        );
        let done = false;
        let longest = 0;
        const probe = (async () => {
          let last = performance.now();
          while (!done) {
            await fetch(`${server.commerce}/v1/health`).then((r) => r.arrayBuffer());
            const now = performance.now();
            longest = Math.max(longest, now - last);
            last = now;
            await new Promise((r) => setTimeout(r, 10));
          }
        })();
        const started = performance.now();
        const res = await fetch(`${server.commerce}/v1/offers`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `${origin}${path}`, ...(itemRef ? { item_ref: itemRef } : {}) }),
        });
        const text = await res.text();
        const body = JSON.parse(text);
        const ms = performance.now() - started;
        done = true;
        await probe;
        const answer = res.ok
          ? `${res.status} ${body.price?.amount} ${body.price?.currency} (${text.length} bytes)`
          : `${res.status} ${body.error?.code} (${text.length} bytes)`;
        console.log(`| ${shape} | ${kib} KiB | ${answer} | ${Math.round(ms)} | ${Math.round(longest)} |`);
      }
    }
  } finally {
    await server.stop();
  }
}
