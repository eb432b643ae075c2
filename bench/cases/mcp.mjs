import { interleaved, keyFor, pairedRow, row, startBaseline, startServer } from '../lib.mjs';

/**
 * The MCP pairs run in more, shorter rounds than the rest (BENCH_MCP_ROUNDS of BENCH_MCP_SECONDS,
 * default 7 of 2 s), each MCP target right beside its REST twin, the order reversed every other
 * round. With REST's own CPU moving by 40 % run to run, two rounds could not tell 0.75× from
 * 0.8×; a median of seven ratios, each taken within its round, moves less, and their range shows
 * how far one round strays.
 */
const MCP_ROUNDS = Number(process.env.BENCH_MCP_ROUNDS ?? 7);
const MCP_SECONDS = Number(process.env.BENCH_MCP_SECONDS ?? 2);

/**
 * Content on the seeded demo brand: `GET /v1/posts?limit=20` against a bare route reading the
 * same posts and their latest metrics (no verdicts), and MCP `tools/call` against its REST twin
 * for `list_posts` and `list_agents`. For MCP the ratio is MCP ÷ REST; its goal is held to the
 * median of the paired rounds.
 */
export default async function contentBench() {
  // The per-key rate limit (120 calls a minute by default) would turn nearly every measured call
  // into a RATE_LIMITED tool error; lift it so the figure is the cost of serving a call, which
  // still includes counting it.
  const server = await startServer({ SERVICE_KEY_RATE_LIMIT: '1000000000' });
  const baselines = [];
  try {
    const key = await keyFor(server.env, ['--service', 'content', '--name', 'bench', '--scopes', 'read']);
    const brands = await (await fetch(`${server.content}/v1/brands`)).json();
    const brandId = brands.brands?.[0]?.id;
    if (!brandId) throw new Error(`no demo brand: ${JSON.stringify(brands)}`);
    const node = await startBaseline('node', server);
    const express = await startBaseline('express', server);
    baselines.push(node, express);

    const mcpHeaders = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const rpc = (name, args) =>
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });
    const check = await fetch(`${server.content}/mcp`, {
      method: 'POST',
      headers: mcpHeaders,
      body: rpc('list_posts', { brandId, limit: 20 }),
    });
    const checked = await check.json();
    if (checked.result?.isError || checked.result?.structuredContent?.posts?.length !== 20)
      throw new Error(
        `list_posts over MCP did not return 20 posts: ${JSON.stringify(checked).slice(0, 300)}`,
      );

    const mcp = (name, args) => ({
      url: `${server.content}/mcp`,
      method: 'POST',
      headers: mcpHeaders,
      body: rpc(name, args),
      pid: server.pid,
    });
    const r = await interleaved({
      bareNode: { url: `${node.url}/posts?brand_id=${brandId}&limit=20`, pid: node.pid },
      bareExpress: { url: `${express.url}/posts?brand_id=${brandId}&limit=20`, pid: express.pid },
      rest: { url: `${server.content}/v1/posts?brand_id=${brandId}&limit=20`, pid: server.pid },
    });
    const m = await interleaved(
      {
        restPosts: { url: `${server.content}/v1/posts?brand_id=${brandId}&limit=20`, pid: server.pid },
        mcpPosts: mcp('list_posts', { brandId, limit: 20 }),
        restAgents: { url: `${server.content}/v1/agents`, pid: server.pid },
        mcpAgents: mcp('list_agents', {}),
      },
      { rounds: MCP_ROUNDS, seconds: MCP_SECONDS, alternate: true },
    );
    return [
      row('bare `node:http`: 20 posts + latest metrics each', r.bareNode),
      row('bare express 5: 20 posts + latest metrics each', r.bareExpress, r.bareNode),
      row(
        'content `GET /v1/posts?brand_id=…&limit=20` (with verdicts) vs bare express',
        r.rest,
        r.bareExpress,
        '≥ 0.5×',
      ),
      row('MCP `tools/call list_posts` (same 20 posts) vs REST, best rounds', m.mcpPosts, m.restPosts),
      pairedRow('MCP `tools/call list_posts` vs REST', m.mcpPosts, m.restPosts, '≥ 0.8×'),
      row('content REST `GET /v1/agents`', m.restAgents),
      row('MCP `tools/call list_agents` vs REST, best rounds', m.mcpAgents, m.restAgents),
      pairedRow('MCP `tools/call list_agents` vs REST', m.mcpAgents, m.restAgents, '≥ 0.8×'),
    ];
  } finally {
    for (const b of baselines) await b.stop();
    await server.stop();
  }
}
