// One way of reading a checkout, in a process of its own, driven by bench/client-retrieve.mjs over
// IPC: each `{ n }` message runs n calls (16 in flight) and answers with this process's CPU time
// per call (`process.cpuUsage()`: every thread, so GC and undici's work are in it). A process per
// way means no way's garbage, JIT state or leftover listeners are billed to another.
//
// argv[2] is a JSON object: { way, url, headers, id, baseUrl, apiKey, userToken, clientDist };
// way is fetch, timed, node-http, client or client-old.
import { pathToFileURL } from 'node:url';

const config = JSON.parse(process.argv[2]);
const CONCURRENCY = 16;

async function callFor(way) {
  const { url, headers } = config;
  // What a caller writes by hand: the same URL and headers, the body parsed.
  const raw = async (signal) => {
    const res = await fetch(url, { headers, signal });
    if (!res.ok) throw new Error(`fetch ${res.status}`);
    await res.json();
  };
  if (way === 'fetch') return () => raw(undefined);
  if (way === 'node-http') {
    // The same by hand over node:http's global agent (keep-alive on Node >= 19): what the client's
    // Node transport does underneath, with nothing of the client's own.
    const { get } = await import('node:http');
    return () =>
      new Promise((resolve, reject) => {
        get(url, { headers }, (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(`node:http ${res.statusCode}`));
            resolve(JSON.parse(Buffer.concat(chunks).toString()));
          });
          res.on('error', reject);
        }).on('error', reject);
      });
  }
  if (way === 'timed') {
    // The least any client whose calls can time out pays: a controller and a timer per call.
    return async () => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 60_000);
      try {
        await raw(controller.signal);
      } finally {
        clearTimeout(timer);
      }
    };
  }
  // 'client' or 'client-old': the commerce client's built package named by clientDist.
  const { CommerceClient } = await import(pathToFileURL(config.clientDist).href);
  const client = new CommerceClient({
    apiKey: config.apiKey,
    baseUrl: config.baseUrl,
    userToken: config.userToken,
  });
  return () => client.checkouts.retrieve(config.id);
}

const call = await callFor(config.way);

async function run(n) {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        next++;
        await call();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { rps: n / seconds, cpuUs: (used.user + used.system) / n };
}

process.on('message', async ({ n }) => {
  try {
    process.send({ ok: true, ...(await run(n)) });
  } catch (error) {
    process.send({ ok: false, error: String(error?.stack ?? error) });
  }
});
process.send({ ready: true });
