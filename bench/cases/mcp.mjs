import { keyFor, measure, row, startServer } from '../lib.mjs';

/**
 * MCP beside REST on the same seeded demo data: `tools/call list_posts` against
 * `GET /v1/posts?brand_id=…` for the same 20 posts. The ratio is MCP ÷ REST; the MCP call
 * also authenticates the key (stamping last use), validates the arguments, writes the call
 * log and serialises the posts twice (text and structuredContent), so 1× is not the aim.
 */
export default async function mcpBench() {
  // The per-key rate limit (120 calls a minute by default) would turn nearly every measured call
  // into a RATE_LIMITED tool error; lift it so the figure is the cost of serving a call, which
  // still includes counting it.
  const server = await startServer({ SERVICE_KEY_RATE_LIMIT: '1000000000' });
  try {
    const key = await keyFor(server.env, ['--service', 'content', '--name', 'bench', '--scopes', 'read']);
    const brands = await (await fetch(`${server.content}/v1/brands`)).json();
    const brandId = brands.brands?.[0]?.id;
    if (!brandId) throw new Error(`no demo brand: ${JSON.stringify(brands)}`);

    const rest = await measure({ url: `${server.content}/v1/posts?brand_id=${brandId}&limit=20` });
    const mcpHeaders = {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const rpc = (method, params) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
    const check = await fetch(`${server.content}/mcp`, {
      method: 'POST',
      headers: mcpHeaders,
      body: rpc('tools/call', { name: 'list_posts', arguments: { brandId, limit: 20 } }),
    });
    const checked = await check.json();
    if (checked.result?.isError || checked.result?.structuredContent?.posts?.length !== 20)
      throw new Error(
        `list_posts over MCP did not return 20 posts: ${JSON.stringify(checked).slice(0, 300)}`,
      );

    const mcp = await measure({
      url: `${server.content}/mcp`,
      method: 'POST',
      headers: mcpHeaders,
      body: rpc('tools/call', { name: 'list_posts', arguments: { brandId, limit: 20 } }),
    });
    const list = await measure({
      url: `${server.content}/mcp`,
      method: 'POST',
      headers: mcpHeaders,
      body: rpc('tools/list', {}),
    });
    // A call with no lookup behind it shows the fixed cost of an MCP call: key check and
    // last-use stamp, argument validation, the call-log write.
    const restAgents = await measure({ url: `${server.content}/v1/agents` });
    const mcpAgents = await measure({
      url: `${server.content}/mcp`,
      method: 'POST',
      headers: mcpHeaders,
      body: rpc('tools/call', { name: 'list_agents', arguments: {} }),
    });
    return [
      row('content REST `GET /v1/posts?brand_id=…&limit=20`', rest),
      row('MCP `tools/call list_posts` (same 20 posts; vs REST)', mcp, rest),
      row('content REST `GET /v1/agents`', restAgents),
      row('MCP `tools/call list_agents` (vs REST)', mcpAgents, restAgents),
      row('MCP `tools/list` (23 tools, prebuilt)', list),
    ];
  } finally {
    await server.stop();
  }
}
