import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { mcpConfig } from '@svc/content-client';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { expectedFiles, PLACEHOLDER_KEY, SERVER_URL } from '../write.mjs';

const dir = join(import.meta.dirname, '..');
const read = (file: string) => readFileSync(join(dir, file), 'utf8');
const files: Record<string, string> = expectedFiles();
const cfg = mcpConfig({ apiKey: PLACEHOLDER_KEY, serverUrl: SERVER_URL });

describe('the checked-in configuration files', () => {
  it.each(Object.keys(files).filter((f) => f.endsWith('.json')))(
    '%s is valid JSON equal to mcpConfig()',
    (file) => {
      expect(JSON.parse(read(file))).toEqual(JSON.parse(files[file] as string));
    },
  );

  it.each(Object.keys(files).filter((f) => f.endsWith('.sh')))('%s holds the mcpConfig() command', (file) => {
    expect(read(file)).toBe(files[file]);
  });

  it('have the shapes each client reads', () => {
    const desktop = JSON.parse(read('claude-desktop/claude_desktop_config.json'));
    expect(desktop.mcpServers.svc).toEqual({
      command: 'npx',
      args: ['-y', '@svc/content-client'],
      env: { SERVICE_API_URL: 'http://localhost:3000', SERVICE_API_KEY: PLACEHOLDER_KEY },
    });
    const cursor = JSON.parse(read('cursor/mcp.json'));
    expect(cursor.mcpServers.svc).toEqual({
      url: 'http://localhost:3000/mcp',
      headers: { Authorization: `Bearer ${PLACEHOLDER_KEY}` },
    });
    const vscode = JSON.parse(read('vscode/mcp.json'));
    expect(vscode.servers.svc).toMatchObject({ type: 'http', url: 'http://localhost:3000/mcp' });
    expect(JSON.parse(read('vscode/mcp.stdio.json')).servers.svc.type).toBe('stdio');
    expect(read('claude-code/add-http.sh')).toContain(
      `claude mcp add --transport http svc http://localhost:3000/mcp --header 'Authorization: Bearer ${PLACEHOLDER_KEY}'`,
    );
  });
});

describe('print.mjs', () => {
  const run = promisify(execFile);
  const print = (args: string[], env: Record<string, string>) =>
    run(process.execPath, [join(dir, 'print.mjs'), ...args], { env: { ...process.env, ...env } });

  it('prints the configuration for your key', async () => {
    const key = 'svc_0123456789abcdefghijklmnopqrstuv';
    const env = { SERVICE_API_KEY: key, SERVICE_API_URL: 'http://127.0.0.1:3100' };
    const mine = mcpConfig({ apiKey: key, serverUrl: 'http://127.0.0.1:3100' });
    expect(JSON.parse((await print(['vscode'], env)).stdout)).toEqual(mine.vscode.http);
    expect(JSON.parse((await print(['cursor', '--stdio'], env)).stdout)).toEqual(mine.cursor.stdio);
    expect((await print(['claude-code'], env)).stdout.trim()).toBe(mine.claudeCode.http.command);
  });

  it('asks for the key when it is missing', async () => {
    const error = await print([], { SERVICE_API_KEY: '' }).catch((e: { stderr: string }) => e);
    expect((error as { stderr: string }).stderr).toContain('Set SERVICE_API_KEY');
  });

  it('the placeholder config is what mcpConfig() makes', () => {
    expect(cfg.url).toBe('http://localhost:3000/mcp');
  });
});
