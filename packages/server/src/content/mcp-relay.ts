import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built `svc-mcp` relay of this checkout (packages/content-client/dist/bin/svc-mcp.js), as
 * an absolute path, or null when the server does not run from a workspace that has built it
 * (an installed package). Until @svc/content-client is published, `npx -y @svc/content-client`
 * cannot fetch the relay, so the app offers this command beside it.
 */
export function localMcpRelay(): { command: string; args: string[] } | null {
  const here = dirname(fileURLToPath(import.meta.url));
  // From src/content/ (tsx, tests) and from dist/ (the built server).
  const candidates = [
    join(here, '../../../content-client/dist/bin/svc-mcp.js'),
    join(here, '../../content-client/dist/bin/svc-mcp.js'),
  ];
  const relay = candidates.find((file) => existsSync(file));
  // The Node.js running this server, by absolute path: an MCP client starts the relay without
  // the shell's PATH (Claude Desktop on macOS), where a bare `node` may not be found.
  return relay ? { command: process.execPath, args: [relay] } : null;
}
