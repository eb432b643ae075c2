import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../../src/config.js';
import type { ContentContext } from '../../src/content/context.js';
import type { Logger } from '../../src/platform/logger.js';
import { twoInstancesForFile } from '../helpers/race.js';
import { api, type TestService } from '../helpers/start.js';

export const LABEL = '(sandbox · simulated)';

/** A key made the way a person makes one: POST /v1/api-keys. */
export async function makeKey(
  svc: TestService,
  scopes: ('read' | 'write')[],
  name = `mcp ${scopes.join('+')}`,
) {
  const res = await api(svc.url, 'POST', '/v1/api-keys', { body: { name, scopes } });
  if (res.status !== 201) throw new Error(`key: ${JSON.stringify(res.body)}`);
  return { key: res.body.key as string, id: res.body.id as string };
}

/** The official SDK client over Streamable HTTP, authenticated with a bearer key. */
export async function connect(svc: TestService, key: string): Promise<Client> {
  const client = new Client({ name: 'svc-mcp-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

export const text = (r: CallToolResult | Record<string, unknown>) =>
  ((r.content as { type: string; text?: string }[]) ?? []).map((c) => c.text ?? '').join('\n');

/** Calls a tool and insists it succeeded and stated the mode label; returns its structured data. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name} failed: ${text(r)}`);
  const first = (r.content[0] as { text: string }).text;
  if (!first.startsWith(LABEL)) throw new Error(`${name}: no mode label in "${first}"`);
  if (r.structuredContent?.mode_label !== LABEL)
    throw new Error(`${name}: no mode_label in structuredContent`);
  return { data: r.structuredContent as any, text: text(r) };
}

/** Calls a tool and insists it failed as a tool error (not a protocol error); returns its text. */
export async function fails(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!r.isError) throw new Error(`${name} should have failed: ${text(r).slice(0, 300)}`);
  const t = text(r);
  if (!t.startsWith(LABEL)) throw new Error(`${name}: no mode label in the error "${t}"`);
  return t;
}

/** A raw POST to /mcp, for what the SDK client never sends. */
export async function rawMcp(
  svc: TestService,
  opts: {
    method?: string;
    key?: string | null;
    headers?: Record<string, string>;
    body?: unknown;
    /** Another spelling of the endpoint's path (default `/mcp`). */
    path?: string;
  } = {},
) {
  const res = await fetch(`${svc.url}${opts.path ?? '/mcp'}`, {
    method: opts.method ?? 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      ...opts.headers,
    },
    ...(opts.body === undefined
      ? {}
      : { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) }),
  });
  const raw = await res.text();
  let body: unknown = raw;
  try {
    body = raw ? JSON.parse(raw) : null;
  } catch {
    // SSE or empty bodies stay text.
  }
  return { status: res.status, headers: res.headers, body: body as any, raw };
}

/** `tools/call list_agents` as a raw POST: the cheapest tool call a read key may make. */
export const listAgentsCall = (svc: TestService, key: string) =>
  rawMcp(svc, {
    key,
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_agents', arguments: {} } },
  });

/** The content service's context behind a test server: its key cache and stores. */
export const ctxOf = (svc: TestService) => (svc.handle as unknown as { ctx: ContentContext }).ctx;

/**
 * Two content instances on one database and one clock, for what a key must do on every instance
 * (a revoke, an epoch move, a lease): started before the calling file's tests, closed after them
 * (the second first: closing the first removes the shared data directory). `config` is both
 * instances'; `logger` is the first one's. Read `a` and `b` inside a test.
 */
export const startTwoInstances = (config: Partial<Config>, opts: { logger?: Logger } = {}) =>
  twoInstancesForFile('content', { config, ...opts });
