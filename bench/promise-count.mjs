#!/usr/bin/env node
// `node bench/promise-count.mjs`: promises the server makes per warm MCP `tools/call list_agents`
// and per REST `GET /v1/agents`, over 3,000 sequential calls each (after 300 to warm up), and the
// bytes its heap allocated per call (V8's own `allocated=` of each collection, --trace-gc-nvp, with
// a collection forced at each reading so none is left uncounted). A count,
// not a timing: it does not move with the machine's load, so an A/B on a shared machine
// (BENCH_SVC_CLI=<old cli.js>) still reads. The hook itself keeps V8 from eliding the promises
// of `await`, so the counts are higher than what runs unhooked; compare them with each other.
// BENCH_ENGINES / BENCH_POSTGRES_URL pick the engine as in the other benches.
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ENGINES, keyFor, mcpToolCall, startServer, useEngine } from './lib.mjs';

const CALLS = 3000;
useEngine(ENGINES.at(-1));
const out = join(tmpdir(), `svc-promises-${process.pid}`);
const server = await startServer(
  { SERVICE_KEY_RATE_LIMIT: '1000000000', PROMISE_COUNT_FILE: out, LOG_LEVEL: 'warn' },
  {
    nodeArgs: [
      '--require',
      join(import.meta.dirname, 'promise-count-preload.cjs'),
      '--expose-gc',
      '--trace-gc-nvp',
    ],
  },
);
// V8 prints one line a collection on the server's stdout: the bytes allocated since the last one.
let allocated = 0;
let pending = '';
server.child.stdout.on('data', (chunk) => {
  const lines = (pending + chunk).split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) allocated += Number(/ allocated=(\d+)/.exec(line)?.[1] ?? 0);
});
try {
  const key = await keyFor(server.env, ['--service', 'content', '--name', 'p', '--scopes', 'read']);
  const mcp = mcpToolCall(server.content, key, 'list_agents', {});
  const calls = {
    'MCP tools/call list_agents': () => fetch(mcp.url, mcp),
    'REST GET /v1/agents': () => fetch(`${server.content}/v1/agents`),
  };
  const count = async () => {
    process.kill(server.pid, 'SIGUSR2');
    await sleep(200);
    return { promises: Number(readFileSync(out, 'utf8')), bytes: allocated };
  };
  console.log(`${ENGINES.at(-1)}, ${process.env.BENCH_SVC_CLI ?? 'this build'}`);
  for (const [name, call] of Object.entries(calls)) {
    for (let i = 0; i < 300; i++) await (await call()).arrayBuffer();
    const before = await count();
    for (let i = 0; i < CALLS; i++) await (await call()).arrayBuffer();
    const after = await count();
    console.log(
      `${name}: ${((after.promises - before.promises) / CALLS).toFixed(2)} promises, ` +
        `${Math.round((after.bytes - before.bytes) / CALLS)} bytes allocated a call`,
    );
  }
} finally {
  await server.stop();
  rmSync(out, { force: true });
}
