// docs/content/mcp.md is what people copy into their MCP clients: every JSON snippet must
// parse, have the shape its client reads, and work as written against a real server; the
// tool tables must name every tool with its scope and parameters.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/content/mcp/tools/index.js';
import { startTestService, type TestService } from '../helpers/start.js';
import { makeKey } from './mcp-helpers.js';

const doc = readFileSync(join(import.meta.dirname, '../../../../docs/content/mcp.md'), 'utf8');
const RELAY = join(import.meta.dirname, '../../../content-client/dist/bin/svc-mcp.js');
const URL_IN_DOCS = 'http://127.0.0.1:3000';
const KEY_IN_DOCS = 'svc_...';

const blocks = (text: string, lang: string) =>
  [...text.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);

/** The `### <client>` sections under "## Client configuration". */
function clientSections(): Record<string, string> {
  const start = doc.indexOf('## Client configuration');
  const end = doc.indexOf('\n## ', start + 5);
  const part = doc.slice(start, end);
  return Object.fromEntries(
    part
      .split('\n### ')
      .slice(1)
      .map((s) => [s.slice(0, s.indexOf('\n')).trim(), s]),
  );
}

interface Entry {
  type?: string;
  url?: string;
  headers?: Record<string, string>;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
}

function entriesOf(json: string): { key: 'mcpServers' | 'servers'; entry: Entry }[] {
  const parsed = JSON.parse(json);
  const key = parsed.mcpServers ? 'mcpServers' : parsed.servers ? 'servers' : null;
  if (!key) return [];
  return Object.values(parsed[key] as Record<string, Entry>).map((entry) => ({ key, entry }));
}

type Kind = 'http' | 'relay' | 'bridge';

/** Checks one server entry's shape and says which kind it is. */
function kindOf(key: 'mcpServers' | 'servers', e: Entry): Kind {
  if (e.url) {
    expect(e.url).toBe(`${URL_IN_DOCS}/mcp`);
    expect(e.headers?.Authorization).toMatch(/^Bearer (svc_\.\.\.|\$\{input:[\w-]+\})$/);
    if (key === 'servers') expect(e.type).toBe('http');
    return 'http';
  }
  expect(e.command).toBe('npx');
  if (e.args?.includes('mcp-remote')) {
    expect(e.args).toContain(`${URL_IN_DOCS}/mcp`);
    const header = e.args[e.args.indexOf('--header') + 1] ?? '';
    const expanded = header.replace(/\$\{(\w+)\}/g, (_m, v: string) => e.env?.[v] ?? '');
    expect(expanded).toBe(`Authorization:Bearer ${KEY_IN_DOCS}`);
    return 'bridge';
  }
  expect(e.args).toEqual(['-y', '@svc/content-client']);
  expect(e.env).toEqual({ SERVICE_API_URL: URL_IN_DOCS, SERVICE_API_KEY: KEY_IN_DOCS });
  if (key === 'servers') expect(e.type).toBe('stdio');
  return 'relay';
}

describe('docs/content/mcp.md', () => {
  it('has only JSON snippets that parse', () => {
    const json = blocks(doc, 'json');
    expect(json.length).toBeGreaterThanOrEqual(8);
    for (const b of json) expect(() => JSON.parse(b), b).not.toThrow();
  });

  it('configures Claude Desktop, Claude Code, Cursor and VS Code over HTTP and over the relay', () => {
    const sections = clientSections();
    expect(Object.keys(sections)).toEqual(['Claude Desktop', 'Claude Code', 'Cursor', 'VS Code']);
    for (const [client, text] of Object.entries(sections)) {
      const kinds = new Set<Kind>();
      for (const b of blocks(text, 'json'))
        for (const { key, entry } of entriesOf(b)) kinds.add(kindOf(key, entry));
      const sh = blocks(text, 'sh').join('\n');
      if (
        sh.includes(
          `claude mcp add --transport http svc ${URL_IN_DOCS}/mcp --header "Authorization: Bearer ${KEY_IN_DOCS}"`,
        )
      )
        kinds.add('http');
      if (
        sh.includes(
          `--env SERVICE_API_URL=${URL_IN_DOCS} --env SERVICE_API_KEY=${KEY_IN_DOCS} -- npx -y @svc/content-client`,
        )
      )
        kinds.add('relay');
      expect(kinds.has('http') || kinds.has('bridge'), `${client}: an HTTP entry`).toBe(true);
      expect(kinds.has('relay'), `${client}: a relay entry`).toBe(true);
    }
  });

  it('lists every tool with its scope and every parameter', () => {
    for (const tool of TOOLS) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${tool.name}\` |`));
      expect(row, tool.name).toBeDefined();
      expect(row?.split('|')[2]?.trim(), tool.name).toBe(tool.scope);
      for (const param of Object.keys(tool.input.shape))
        expect(row, `${tool.name}.${param}`).toContain(`\`${param}`);
    }
    const rows = doc.split('\n').filter((l) => /^\| `[a-z_]+` \| (read|write) \|/.test(l));
    expect(rows).toHaveLength(23);
  });
});

describe('the snippets work as written', () => {
  let svc: TestService;
  let key: string;
  const fill = (s: string) => s.replaceAll(URL_IN_DOCS, svc.url).replaceAll(KEY_IN_DOCS, key);

  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo' } });
    key = (await makeKey(svc, ['read'])).key;
  });
  afterAll(() => svc?.close());

  const all = () => blocks(doc, 'json').flatMap(entriesOf);

  it('every HTTP entry connects and lists the 23 tools', async () => {
    const http = all().filter(
      ({ entry }) => entry.url && !entry.headers?.Authorization?.includes('${input:'),
    );
    expect(http.length).toBeGreaterThanOrEqual(3);
    for (const { entry } of http) {
      const client = new Client({ name: 'docs', version: '0' });
      const headers = Object.fromEntries(Object.entries(entry.headers ?? {}).map(([k, v]) => [k, fill(v)]));
      await client.connect(
        new StreamableHTTPClientTransport(new URL(fill(entry.url as string)), { requestInit: { headers } }),
      );
      expect((await client.listTools()).tools).toHaveLength(23);
      await client.close();
    }
  });

  it('the relay entry connects (the relay run from this checkout instead of npx)', async () => {
    const relay = all().find(({ entry }) => entry.args?.includes('@svc/content-client'));
    const env = Object.fromEntries(Object.entries(relay?.entry.env ?? {}).map(([k, v]) => [k, fill(v)]));
    const client = new Client({ name: 'docs', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [RELAY],
        env: { PATH: process.env.PATH ?? '', ...env },
      }),
    );
    expect((await client.listTools()).tools).toHaveLength(23);
    await client.close();
  });
});
