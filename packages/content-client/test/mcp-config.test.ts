import { describe, expect, it } from 'vitest';
import { mcpConfig } from '../src/index.js';

const key = 'svc_abcdefghijklmnopqrstuvwxyz012345';

describe('mcpConfig', () => {
  const cfg = mcpConfig({ apiKey: key, serverUrl: 'http://localhost:3000' });

  it('builds the HTTP entry: the /mcp URL and the bearer header', () => {
    expect(cfg.http).toEqual({
      url: 'http://localhost:3000/mcp',
      headers: { Authorization: `Bearer ${key}` },
    });
  });

  it('builds the stdio entry: the relay through npx with SERVICE_API_URL and SERVICE_API_KEY', () => {
    expect(cfg.stdio).toEqual({
      command: 'npx',
      args: ['-y', '@svc/content-client'],
      env: { SERVICE_API_URL: 'http://localhost:3000', SERVICE_API_KEY: key },
    });
  });

  it('runs another stdio command when given one (the relay built in a checkout)', () => {
    const relay = {
      command: '/usr/bin/node',
      args: ['/src/svc/packages/content-client/dist/bin/svc-mcp.js'],
    };
    const local = mcpConfig({ apiKey: key, serverUrl: 'http://localhost:3000', stdioCommand: relay });
    expect(local.claudeDesktop.mcpServers.svc).toEqual({ ...relay, env: cfg.stdio.env });
    expect(local.claudeCode.stdio.argv.slice(-2)).toEqual([relay.command, ...relay.args]);
    expect(local.http).toEqual(cfg.http);
  });

  it('wraps them per client: mcpServers for Claude Desktop and Cursor, typed servers for VS Code', () => {
    expect(cfg.claudeDesktop).toEqual({ mcpServers: { svc: cfg.stdio } });
    expect(cfg.cursor.http).toEqual({ mcpServers: { svc: cfg.http } });
    expect(cfg.cursor.stdio).toEqual({ mcpServers: { svc: cfg.stdio } });
    expect(cfg.vscode.http).toEqual({ servers: { svc: { type: 'http', ...cfg.http } } });
    expect(cfg.vscode.stdio).toEqual({ servers: { svc: { type: 'stdio', ...cfg.stdio } } });
  });

  it('gives Claude Code commands, quoted for a shell', () => {
    expect(cfg.claudeCode.http.command).toBe(
      `claude mcp add --transport http svc http://localhost:3000/mcp --header 'Authorization: Bearer ${key}'`,
    );
    expect(cfg.claudeCode.stdio.argv).toEqual([
      'claude',
      'mcp',
      'add',
      'svc',
      '--env',
      'SERVICE_API_URL=http://localhost:3000',
      '--env',
      `SERVICE_API_KEY=${key}`,
      '--',
      'npx',
      '-y',
      '@svc/content-client',
    ]);
  });

  it('accepts the client baseUrl or the /mcp URL, and a custom name', () => {
    for (const serverUrl of [
      'http://127.0.0.1:3000/v1',
      'http://127.0.0.1:3000/mcp/',
      'http://127.0.0.1:3000/',
    ])
      expect(mcpConfig({ apiKey: key, serverUrl }).url).toBe('http://127.0.0.1:3000/mcp');
    const named = mcpConfig({ apiKey: key, serverUrl: 'https://svc.example.com/base', name: 'content' });
    expect(named.url).toBe('https://svc.example.com/base/mcp');
    expect(Object.keys(named.cursor.http.mcpServers)).toEqual(['content']);
  });

  it('refuses a missing key or a bad URL', () => {
    expect(() => mcpConfig({ apiKey: '', serverUrl: 'http://localhost:3000' })).toThrow(TypeError);
    expect(() => mcpConfig({ apiKey: key, serverUrl: 'localhost:3000' })).toThrow(/http\(s\)|absolute/);
    expect(() => mcpConfig({ apiKey: key, serverUrl: 'ftp://x' })).toThrow(/http\(s\)/);
  });

  it('is plain JSON: it survives a round trip unchanged', () => {
    expect(JSON.parse(JSON.stringify(cfg))).toEqual(cfg);
  });
});
