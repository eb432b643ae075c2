#!/usr/bin/env node
// `node bench/hostile-bodies.mjs [shape…]`: the largest JSON bodies the 1 MiB body limit allows,
// each sent three times, one after another, while a second process polls `GET /health` every 50 ms;
// prints each body's answer, how long it took, and the longest /health answer meanwhile (the event
// loop both services share was held that long). Figures only, never assertions (the behaviour is
// tested in packages/server/test/security/hostile-json-bodies.test.ts). Runs the built server
// (`pnpm build` first), or another build's with BENCH_SVC_CLI; BENCH_ENGINES picks the engines.
import { spawn } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { ENGINES, keyFor, startServer, useEngine } from './lib.mjs';

const LIMIT = 1024 * 1024;
/** `unit` repeated between `head` and `tail` until the body is just under the limit. */
const fill = (head, unit, tail) => {
  const n = Math.floor((LIMIT - 64 - head.length - tail.length) / (unit.length + 1));
  return `${head}${Array(n).fill(unit).join(',')}${tail}`;
};
const wideObject = (head, tail) => {
  const parts = [];
  let size = head.length + tail.length + 64;
  for (let i = 0; size < LIMIT - 32; i++) {
    const p = `"k${i}":0`;
    parts.push(p);
    size += p.length + 1;
  }
  return `${head}{${parts.join(',')}}${tail}`;
};
const mcp = (args) =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_agents","arguments":${args}}}`;
/** The call up to its arguments' value, and what closes it. */
const MCP_HEAD = mcp('').slice(0, -2);
const MCP_TAIL = '}}';

/** Each shape: the service, the path, whether it needs the MCP key, and the body. */
const SHAPES = {
  'commerce-deep-arrays-no-key': [
    'commerce',
    '/v1/checkouts',
    false,
    () => `{"a":${'['.repeat(500_000)}0${']'.repeat(500_000)}}`,
  ],
  'commerce-numbers-no-key': ['commerce', '/v1/checkouts', false, () => fill('{"a":[', '0', ']}')],
  'content-rest-numbers': ['content', '/v1/brands', false, () => fill('{"name":"x","a":[', '0', ']}')],
  'content-rest-strings': ['content', '/v1/brands', false, () => fill('{"name":"x","a":[', '"a"', ']}')],
  'content-rest-empty-objects': ['content', '/v1/brands', false, () => fill('{"name":"x","a":[', '{}', ']}')],
  'content-rest-wide-object': ['content', '/v1/brands', false, () => wideObject('{"name":"x","a":', '}')],
  'mcp-numbers': ['content', '/mcp', true, () => fill(`${MCP_HEAD}{"a":[`, '0', `]}${MCP_TAIL}`)],
  'mcp-deep-arrays': [
    'content',
    '/mcp',
    true,
    () => mcp(`{"a":${'['.repeat(400_000)}0${']'.repeat(400_000)}}`),
  ],
  'mcp-wide-object': ['content', '/mcp', true, () => wideObject(MCP_HEAD, MCP_TAIL)],
};

/** A child process that polls /health every 50 ms; `mark()` returns the longest answer since the last mark. */
function healthProbe(url) {
  const code = `
    let worst = 0;
    const tick = async () => { const t = performance.now(); try { await (await fetch(${JSON.stringify(url)})).arrayBuffer(); } catch {}
      worst = Math.max(worst, performance.now() - t); setTimeout(tick, 50); };
    tick();
    process.stdin.on('data', () => { process.stdout.write(worst.toFixed(0) + '\\n'); worst = 0; });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  let waiting = null;
  child.stdout.on('data', (d) => waiting?.(Number(String(d).trim())));
  return {
    mark: () =>
      new Promise((resolve) => {
        waiting = resolve;
        child.stdin.write('\n');
      }),
    stop: () => child.kill(),
  };
}

const shapes = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SHAPES);
console.log(
  `node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString()}`,
);
for (const engine of ENGINES) {
  useEngine(engine);
  const server = await startServer();
  const probe = healthProbe(`${server.content}/health`);
  try {
    const key = await keyFor(server.env, ['--service', 'content', '--name', 'bench', '--scopes', 'read']);
    console.log(
      `\n${engine}, load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    console.log('| body | answer | ms (3 sends) | longest /health ms |');
    console.log('|---|---|---:|---:|');
    for (const name of shapes) {
      const [service, path, keyed, make] = SHAPES[name];
      const body = make();
      await new Promise((r) => setTimeout(r, 300));
      await probe.mark();
      const ms = [];
      let answer = '';
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const res = await fetch(`${server[service]}${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...(keyed ? { authorization: `Bearer ${key}` } : {}),
          },
          body,
        });
        const text = await res.text();
        ms.push(Math.round(performance.now() - started));
        const code = /"code":\s*("?[\w-]+"?)/.exec(text)?.[1] ?? '';
        answer = `${res.status} ${code.replaceAll('"', '')}`;
      }
      await new Promise((r) => setTimeout(r, 100));
      console.log(
        `| ${name} (${Math.round(body.length / 1024)} KiB) | ${answer} | ${ms.join(' / ')} | ${await probe.mark()} |`,
      );
    }
  } finally {
    probe.stop();
    await server.stop();
  }
}
