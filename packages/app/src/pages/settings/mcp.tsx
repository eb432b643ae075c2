import { mcpConfig } from '@svc/content-client';
import { client } from '../../api.js';
import { useLoad } from '../../hooks.js';
import { CopyButton } from './copy.js';

/** Stands in for the key in the snippets until one is created on this page. */
export const KEY_PLACEHOLDER = 'svc_YOUR_KEY';

/**
 * The MCP client configuration for each client, from mcpConfig() of @svc/content-client (the
 * same builder API users call), for this server and the key just created (or a placeholder).
 */
export function McpSection({ apiKey }: { apiKey: string | null }) {
  const cfg = mcpConfig({ apiKey: apiKey ?? KEY_PLACEHOLDER, serverUrl: location.origin });
  // Until @svc/content-client is published, npx cannot fetch the relay: the server says where
  // the one built in its checkout is, and that stdio entry is offered first.
  const relay = useLoad(async () => (await client.mcpRelay.retrieve()).relay, []).data;
  const local = relay
    ? mcpConfig({ apiKey: apiKey ?? KEY_PLACEHOLDER, serverUrl: location.origin, stdioCommand: relay })
    : null;
  const snippets = [
    ...(local
      ? [
          {
            id: 'claude-desktop-local',
            client: 'Claude Desktop, with the relay from this checkout',
            where:
              'claude_desktop_config.json on this machine (it runs the svc-mcp relay built in this checkout; works today)',
            text: JSON.stringify(local.claudeDesktop, null, 2),
          },
        ]
      : []),
    {
      id: 'claude-desktop',
      client: 'Claude Desktop',
      where:
        'claude_desktop_config.json (it runs the svc-mcp relay through npx, once @svc/content-client is published)',
      text: JSON.stringify(cfg.claudeDesktop, null, 2),
    },
    { id: 'claude-code', client: 'Claude Code', where: 'a terminal', text: cfg.claudeCode.http.command },
    {
      id: 'cursor',
      client: 'Cursor',
      where: '~/.cursor/mcp.json or .cursor/mcp.json',
      text: JSON.stringify(cfg.cursor.http, null, 2),
    },
    {
      id: 'vscode',
      client: 'VS Code',
      where: '.vscode/mcp.json',
      text: JSON.stringify(cfg.vscode.http, null, 2),
    },
  ];
  return (
    <section aria-labelledby="mcp-title" id="mcp">
      <h2 id="mcp-title">MCP configuration</h2>
      <p class="ops-muted">
        {apiKey
          ? 'Ready to paste: these snippets carry the key you just created.'
          : `Create a key above and these snippets fill in with it; until then they show ${KEY_PLACEHOLDER}.`}{' '}
        The server's MCP address is <code>{cfg.url}</code>.
      </p>
      {snippets.map((s) => (
        <div key={s.id} class="snippet">
          <div class="snippet-head">
            <h3 id={`mcp-${s.id}-title`}>{s.client}</h3>
            <CopyButton text={s.text} label={`Copy the ${s.client} configuration`} target={`mcp-${s.id}`} />
          </div>
          <p class="ops-muted">In {s.where}:</p>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling snippet must be reachable by keyboard (axe scrollable-region-focusable). */}
          <pre id={`mcp-${s.id}`} class="ops-snippet" tabIndex={0}>
            {s.text}
          </pre>
        </div>
      ))}
    </section>
  );
}
