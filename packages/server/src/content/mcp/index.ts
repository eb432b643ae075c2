import type { RequestHandler } from 'express';
import type { ContentContext } from '../context.js';
import { createMcpEngine, type McpEngine } from './engine.js';
import { mcpRouter } from './router.js';

export { createMcpEngine, type McpEngine, SERVER_NAME } from './engine.js';
export { MCP_PATH } from './router.js';
export { READ_TOOLS, TOOLS, WRITE_TOOLS } from './tools/index.js';

/** The MCP server for one content app: built once at start-up, served at `POST /mcp`. */
export function createMcpServer(
  ctx: ContentContext,
  opts: { bodyLimitBytes: number },
): {
  engine: McpEngine;
  router: RequestHandler;
} {
  const engine = createMcpEngine(ctx);
  return { engine, router: mcpRouter(ctx, engine, opts) };
}
