// MCP client configuration for the content service's tool server, in the shapes the common
// MCP clients read. Pure data: nothing here talks to the network or the file system.

export interface McpConfigOptions {
  /** A key from `POST /v1/api-keys` (or the app's Settings → API keys, `/settings`): `svc_` + 32 characters. */
  apiKey: string;
  /**
   * The service root, e.g. `http://localhost:3000`. A trailing `/mcp` or `/v1` is dropped, so
   * the client's `baseUrl` works too.
   */
  serverUrl: string;
  /** The name the server is registered under in the MCP client. Default `svc`. */
  name?: string | undefined;
  /**
   * What stdio entries run instead of `npx -y @svc/content-client`: e.g. the relay built in a
   * checkout, `{ command: '/usr/bin/node', args: ['/src/svc/packages/content-client/dist/bin/svc-mcp.js'] }`
   * (what `client.mcpRelay.retrieve()` answers), which works before the package is published.
   */
  stdioCommand?: { command: string; args: string[] } | undefined;
}

/** Streamable HTTP entry: the `/mcp` URL and the bearer header. */
export interface McpHttpEntry {
  url: string;
  headers: { Authorization: string };
}

/** stdio entry: the `svc-mcp` relay from this package, which forwards to `{SERVICE_API_URL}/mcp`. */
export interface McpStdioEntry {
  command: string;
  args: string[];
  env: { SERVICE_API_URL: string; SERVICE_API_KEY: string };
}

/** A Claude Code command line, as argv and as one shell line. */
export interface McpCommand {
  argv: string[];
  command: string;
}

export interface McpConfig {
  name: string;
  /** `{serverUrl}/mcp` */
  url: string;
  http: McpHttpEntry;
  stdio: McpStdioEntry;
  /** `claude_desktop_config.json`. Its file takes stdio servers, so this uses the relay. */
  claudeDesktop: { mcpServers: Record<string, McpStdioEntry> };
  /** `~/.cursor/mcp.json` or `.cursor/mcp.json`. */
  cursor: {
    http: { mcpServers: Record<string, McpHttpEntry> };
    stdio: { mcpServers: Record<string, McpStdioEntry> };
  };
  /** `.vscode/mcp.json`: servers under `servers`, each with a `type`. */
  vscode: {
    http: { servers: Record<string, McpHttpEntry & { type: 'http' }> };
    stdio: { servers: Record<string, McpStdioEntry & { type: 'stdio' }> };
  };
  /** `claude mcp add ...` */
  claudeCode: { http: McpCommand; stdio: McpCommand };
}

/** The package that ships the `svc-mcp` relay bin; `npx -y` runs its only bin. */
export const MCP_RELAY_PACKAGE = '@svc/content-client';

function serviceRoot(serverUrl: string): string {
  let url: URL;
  try {
    url = new URL(serverUrl);
  } catch {
    throw new TypeError(`mcpConfig: serverUrl is not an absolute URL: "${serverUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`mcpConfig: serverUrl must be http(s): "${serverUrl}"`);
  }
  if (url.search || url.hash)
    throw new TypeError(`mcpConfig: serverUrl must not carry a query: "${serverUrl}"`);
  // eslint-disable-next-line regexp/no-super-linear-move -- the developer's own serverUrl, not outside input
  return url.href.replace(/\/+$/, '').replace(/\/(mcp|v1)$/, '');
}

// POSIX shell quoting: plain words stay as they are; anything else is single-quoted.
const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
const command = (argv: string[]): McpCommand => ({ argv, command: argv.map(quote).join(' ') });

/**
 * Builds MCP client configuration for one key and server, both as a Streamable HTTP entry
 * (URL + `Authorization` header) and as a stdio entry (the `svc-mcp` relay, configured with
 * `SERVICE_API_URL` and `SERVICE_API_KEY`), in the shapes of `docs/content/mcp.md`.
 *
 * ```ts
 * const cfg = mcpConfig({ apiKey: key.key, serverUrl: 'http://localhost:3000' });
 * writeFileSync('.cursor/mcp.json', JSON.stringify(cfg.cursor.http, null, 2));
 * ```
 */
export function mcpConfig(options: McpConfigOptions): McpConfig {
  const { apiKey } = options;
  if (typeof apiKey !== 'string' || apiKey.trim() === '' || /\s/.test(apiKey)) {
    throw new TypeError('mcpConfig: apiKey must be a key like "svc_..." (from POST /v1/api-keys)');
  }
  const name = options.name ?? 'svc';
  const root = serviceRoot(options.serverUrl);
  const url = `${root}/mcp`;
  const http: McpHttpEntry = { url, headers: { Authorization: `Bearer ${apiKey}` } };
  const stdio: McpStdioEntry = {
    command: options.stdioCommand?.command ?? 'npx',
    args: options.stdioCommand ? [...options.stdioCommand.args] : ['-y', MCP_RELAY_PACKAGE],
    env: { SERVICE_API_URL: root, SERVICE_API_KEY: apiKey },
  };
  return {
    name,
    url,
    http,
    stdio,
    claudeDesktop: { mcpServers: { [name]: stdio } },
    cursor: { http: { mcpServers: { [name]: http } }, stdio: { mcpServers: { [name]: stdio } } },
    vscode: {
      http: { servers: { [name]: { type: 'http', ...http } } },
      stdio: { servers: { [name]: { type: 'stdio', ...stdio } } },
    },
    claudeCode: {
      http: command([
        'claude',
        'mcp',
        'add',
        '--transport',
        'http',
        name,
        url,
        '--header',
        `Authorization: Bearer ${apiKey}`,
      ]),
      stdio: command([
        'claude',
        'mcp',
        'add',
        name,
        '--env',
        `SERVICE_API_URL=${root}`,
        '--env',
        `SERVICE_API_KEY=${apiKey}`,
        '--',
        stdio.command,
        ...stdio.args,
      ]),
    },
  };
}
