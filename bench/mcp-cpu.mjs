#!/usr/bin/env node
// `node bench/mcp-cpu.mjs`: the server's CPU a call for MCP `tools/call list_agents` and REST
// `GET /v1/agents`, over BENCH_MCP_ROUNDS turned rounds (default 7, as the mcp case). Requests a
// second count the machine's other work as much as ours; the server process's CPU a call moves
// far less on a shared machine, so this is the A/B to read there. Two loads:
// - default: wrk as in the mcp case (BENCH_MCP_SECONDS, default 2 s a measurement), the server
//   saturated on its core;
// - BENCH_MCP_CLIENT=fetch: a fixed count of calls (BENCH_MCP_CALLS, default 20,000, 16 in flight)
//   from a `fetch` loop on the load core, as an MCP client sends them; the client is then the
//   bottleneck, and the server idles between calls.
// With BENCH_MCP_OLD_CLI=<another build's cli.js> both builds run side by side, each with its own
// data, and every round measures the four (this build's MCP and REST, the other's REST and MCP)
// in an order turned every other round. BENCH_ENGINES / BENCH_POSTGRES_URL pick the engine.
import {
  closedLoop,
  ENGINES,
  keyFor,
  mcpToolCall,
  pinSelf,
  requireWrk,
  startServer,
  useEngine,
  wrk,
} from './lib.mjs';

const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 7);
const SECONDS = Number(process.env.BENCH_MCP_SECONDS ?? 2);
const IN_FLIGHT = 16;
const OLD_CLI = process.env.BENCH_MCP_OLD_CLI;
const FETCH = process.env.BENCH_MCP_CLIENT === 'fetch';

if (!FETCH) requireWrk();
pinSelf();
useEngine(ENGINES.at(-1));

/** A server of one build with its REST and MCP calls, each answered in full before the next. */
async function build(name, cli) {
  // The per-key limit lifted, as in the mcp case: the figure is serving a call, counting it included.
  const server = await startServer({ SERVICE_KEY_RATE_LIMIT: '1000000000' }, cli ? { cli } : {});
  const key = await keyFor(server.env, ['--service', 'content', '--name', 'cpu', '--scopes', 'read']);
  const mcp = mcpToolCall(server.content, key, 'list_agents', {});
  const read = async (res) => {
    if (!res.ok) throw new Error(`${res.url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };
  const calls = {
    mcp: () => fetch(mcp.url, mcp).then(read),
    rest: () => fetch(`${server.content}/v1/agents`).then(read),
  };
  const targets = {
    mcp: { ...mcp, pid: server.pid },
    rest: { url: `${server.content}/v1/agents`, pid: server.pid },
  };
  return {
    name,
    server,
    measure: (what, warmUp = false) =>
      FETCH
        ? closedLoop(warmUp ? 2_000 : CALLS, IN_FLIGHT, server.pid, calls[what])
        : wrk(targets[what], warmUp ? 1 : SECONDS),
  };
}

const builds = [await build('this build')];
if (OLD_CLI) builds.push(await build(OLD_CLI, OLD_CLI));
try {
  const steps = builds.flatMap((b) => [
    { b, what: 'mcp' },
    { b, what: 'rest' },
  ]);
  // Warm-up: every path compiled and every cache filled before the first measured call.
  for (const { b, what } of steps) await b.measure(what, true);
  const cpu = new Map(steps.map((s) => [s, []]));
  const rps = new Map(steps.map((s) => [s, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? steps : [...steps].reverse();
    for (const s of order) {
      const r = await s.b.measure(s.what);
      cpu.get(s).push(r.cpuUs);
      rps.get(s).push(r.rps);
    }
  }
  const sorted = (xs) => [...xs].sort((a, b) => a - b);
  const quartiles = (xs) => {
    const s = sorted(xs);
    const at = (q) => s[Math.min(s.length - 1, Math.round(q * (s.length - 1)))];
    return [at(0.5), at(0.25), at(0.75)];
  };
  const f = (n, d = 1) => n.toFixed(d);
  const load = FETCH ? `${CALLS} calls from fetch, ${IN_FLIGHT} in flight` : `wrk ${SECONDS} s`;
  console.log(`${ENGINES.at(-1)}, ${load}, ${ROUNDS} turned rounds; median (quartiles)`);
  for (const b of builds) {
    const of = (what, m) => m.get(steps.find((s) => s.b === b && s.what === what));
    const [mcp, rest] = [of('mcp', cpu), of('rest', cpu)];
    // In the same round: REST's CPU a call over MCP's (the goal's ratio if the server is CPU-bound),
    // and MCP's requests a second over REST's (the goal's own ratio).
    const cpuRatio = quartiles(rest.map((r, i) => r / mcp[i]));
    const rpsRatio = quartiles(of('mcp', rps).map((m, i) => m / of('rest', rps)[i]));
    const [m, m1, m3] = quartiles(mcp);
    const [r, r1, r3] = quartiles(rest);
    const q = ([x, lo, hi], d = 2) => `${f(x, d)}× (${f(lo, d)}-${f(hi, d)})`;
    console.log(
      `${b.name}: server CPU µs a call MCP ${f(m)} (${f(m1)}-${f(m3)}), REST ${f(r)} (${f(r1)}-${f(r3)}); ` +
        `REST ÷ MCP CPU ${q(cpuRatio)}; MCP ÷ REST req/s ${q(rpsRatio)}`,
    );
  }
} finally {
  for (const b of builds) await b.server.stop();
}
