// The svc-mcp stdio relay: the built bin as a real child process for its exits, and the relay
// loop in-process against a real content server for what it forwards and writes.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  createContentApiKey,
  createContentApp,
  type Listening,
  listen,
  ManualClock,
  randomIds,
  silentLogger,
  testConfig,
} from '@svc/server';
import { createTestEngineDatabase, type TestEngineDatabase } from '@svc/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runRelay, sseData } from '../src/relay/index.js';

const BIN = join(import.meta.dirname, '../dist/bin/svc-mcp.js');

let listening: Listening;
let dataDir: string;
// SQLite in dataDir, or a fresh PostgreSQL database when SVC_TEST_DATABASE=postgres.
let database: TestEngineDatabase;
let key: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'svc-relay-'));
  database = await createTestEngineDatabase();
  const deps = {
    config: testConfig({ dataDir, ...database.config }),
    clock: new ManualClock(),
    ids: randomIds,
    logger: silentLogger(),
  };
  const handle = await createContentApp(deps);
  listening = await listen(handle, '127.0.0.1', 0);
  key = (await createContentApiKey(handle.db, deps, { name: 'relay', scopes: ['read'] })).key;
});

afterAll(async () => {
  await listening?.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

/** Runs the built relay with `env` and `input` on stdin; resolves with its exit and output. */
function runBin(env: Record<string, string>, input = '') {
  if (!existsSync(BIN))
    throw new Error(`${BIN} is missing: run \`pnpm --filter @svc/content-client build\` first.`);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const { SERVICE_API_URL: _u, SERVICE_API_KEY: _k, ...rest } = process.env;
    const child = spawn(process.execPath, [BIN], { env: { ...rest, ...env }, stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('svc-mcp exits with a clear message', () => {
  it('when a variable is missing', async () => {
    const none = await runBin({});
    expect(none.code).toBe(EXIT.config);
    expect(none.stderr).toContain('SERVICE_API_URL and SERVICE_API_KEY are not set');
    expect(none.stdout).toBe('');
    const noKey = await runBin({ SERVICE_API_URL: listening.url });
    expect(noKey.code).toBe(EXIT.config);
    expect(noKey.stderr).toMatch(/^svc-mcp: SERVICE_API_KEY is not set/);
    const badUrl = await runBin({ SERVICE_API_URL: 'localhost:3000', SERVICE_API_KEY: key });
    expect(badUrl.code).toBe(EXIT.config);
  });

  it('when the service cannot be reached', async () => {
    const res = await runBin({
      SERVICE_API_URL: `http://127.0.0.1:${await closedPort()}`,
      SERVICE_API_KEY: key,
    });
    expect(res.code).toBe(EXIT.unreachable);
    expect(res.stderr).toContain('cannot reach the content service');
    expect(res.stderr).toContain('Is the API running? Start it with `npx svc-server start`.');
    expect(res.stdout).toBe('');
  });

  it('when the key is refused', async () => {
    const res = await runBin({
      SERVICE_API_URL: listening.url,
      SERVICE_API_KEY: 'svc_00000000000000000000000000000000',
    });
    expect(res.code).toBe(EXIT.refused);
    expect(res.stderr).toContain('refused the API key (HTTP 401)');
    expect(res.stdout).toBe('');
  });

  it('forwards and ends cleanly when stdin closes', async () => {
    const res = await runBin(
      { SERVICE_API_URL: `${listening.url}/`, SERVICE_API_KEY: key },
      `${JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' })}\n`,
    );
    expect(res.code).toBe(EXIT.ok);
    expect(res.stdout).toBe(`${JSON.stringify({ jsonrpc: '2.0', id: 7, result: {} })}\n`);
    expect(res.stderr).toBe('');
  });
});

describe('the relay loop', () => {
  async function relay(lines: unknown[], opts: { accept?: string } = {}) {
    const stdin = new PassThrough();
    const out: string[] = [];
    const err: string[] = [];
    const done = runRelay({
      env: { SERVICE_API_URL: `${listening.url}/mcp`, SERVICE_API_KEY: key },
      stdin,
      writeMessage: (l) => out.push(l),
      writeError: (t) => err.push(t),
      // The service answers JSON to the SDK's Accept; asking for SSE only exercises the stream path.
      fetch: (url, init) =>
        fetch(
          url,
          opts.accept ? { ...init, headers: { ...(init?.headers as object), accept: opts.accept } } : init,
        ),
    });
    for (const l of lines) stdin.write(`${typeof l === 'string' ? l : JSON.stringify(l)}\n`);
    stdin.end();
    return { code: await done, out: out.map((l) => JSON.parse(l)), raw: out, err };
  }

  const init = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } },
  };

  it.each([
    ['JSON', undefined],
    ['SSE', 'text/event-stream'],
  ])('writes each %s reply as one line; notifications produce nothing', async (_label, accept) => {
    const res = await relay(
      [
        init,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        '',
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      ],
      { accept },
    );
    expect(res.code).toBe(0);
    expect(res.err).toEqual([]);
    expect(res.out.map((m) => m.id).sort()).toEqual([1, 2]);
    expect(res.out.find((m) => m.id === 2).result.tools).toHaveLength(23);
    for (const line of res.raw) expect(line).not.toContain('\n');
  });

  it('passes the service’s JSON-RPC errors through', async () => {
    const res = await relay(['{not json', { jsonrpc: '2.0', id: 3, method: 'nope/nope' }]);
    expect(res.code).toBe(0);
    expect(res.out.map((m) => m.error?.code).sort()).toEqual([-32601, -32700]);
  });
});

describe('sseData', () => {
  async function events(chunks: string[]) {
    const enc = new TextEncoder();
    async function* body() {
      for (const c of chunks) yield enc.encode(c);
    }
    const out: string[] = [];
    for await (const d of sseData(body())) out.push(d);
    return out;
  }

  it('reads events split across chunks, CRLF, comments and multi-line data', async () => {
    expect(
      await events([
        'event: message\nda',
        'ta: {"a":1}\n\n',
        ': keep-alive\r\n\r\n',
        'data: x\r\ndata: y\r\n\r\n',
      ]),
    ).toEqual(['{"a":1}', 'x\ny']);
    expect(await events(['id: 1\nretry: 100\n\n', 'data:{"last":true}'])).toEqual(['{"last":true}']);
  });
});
