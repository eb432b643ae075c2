// Issue 18, item 10: a write-scope key must not be able to grow Brand Memory without bound or
// flood the server. Over real HTTP: the same memory caps over MCP and REST, a byte bound on the
// whole memory, a bounded batch, and a per-key rate limit counted in the database.
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import type { McpEngine } from '../../src/content/mcp/engine.js';
import { mcpRouter } from '../../src/content/mcp/router.js';
import { api, sameDatabase, startTestService, type TestService } from '../helpers/start.js';
import { connect, fails, makeKey, ok, rawMcp } from './mcp-helpers.js';

const notes = (n: number, size: number, tag = 'n') =>
  Array.from({ length: n }, (_, i) => ({ title: `${tag} ${i}`, body: `${tag}${i} `.padEnd(size, 'x') }));

async function newBrand(svc: TestService, name: string): Promise<string> {
  const res = await api(svc.url, 'POST', '/v1/brands', { body: { name } });
  expect(res.status).toBe(201);
  return res.body.id;
}

const knowledgeCount = async (svc: TestService, brandId: string) =>
  (await api(svc.url, 'GET', `/v1/brands/${brandId}/memory`)).body.knowledge.length as number;

describe('Brand Memory caps: one rule for MCP and REST', () => {
  let svc: TestService;
  let client: Client;

  beforeAll(async () => {
    // Room for large PATCH bodies, and no rate limit in the way of these tests.
    svc = await startTestService('content', {
      config: { maxBodyBytes: 4 * 1024 * 1024, keyRateLimit: 10_000 },
    });
    client = await connect(svc, (await makeKey(svc, ['read', 'write'])).key);
  });
  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  it('200 knowledge notes at most, whether added over MCP or REST; nothing is written past it', async () => {
    const brandId = await newBrand(svc, 'Full notes');
    const patch = await api(svc.url, 'PATCH', `/v1/brands/${brandId}`, {
      body: { memory: { knowledge: notes(200, 20) } },
    });
    expect(patch.status).toBe(200);

    const viaMcp = await fails(client, 'add_knowledge', { brandId, title: 'one more', body: 'over the cap' });
    expect(viaMcp).toContain('Error MEMORY_FULL');
    expect(viaMcp).toContain('at most 200 knowledge notes');

    const viaRest = await api(svc.url, 'POST', `/v1/brands/${brandId}/memory/knowledge`, {
      body: { title: 'one more', body: 'over the cap' },
    });
    expect(viaRest.status).toBe(422);
    expect(viaRest.body.error).toMatchObject({ code: 'MEMORY_FULL', request_id: expect.any(String) });
    expect(await knowledgeCount(svc, brandId)).toBe(200);
  });

  it('bounds the whole memory in bytes: REST and MCP writes past 1 MiB are refused', async () => {
    const brandId = await newBrand(svc, 'Heavy notes');
    const tooBig = await api(svc.url, 'PATCH', `/v1/brands/${brandId}`, {
      body: { memory: { knowledge: notes(150, 10_000) } },
    });
    expect(tooBig.status).toBe(422);
    expect(tooBig.body.error.code).toBe('MEMORY_FULL');
    expect(tooBig.body.error.message).toContain('1048576 bytes');
    expect(await knowledgeCount(svc, brandId)).toBe(0);

    const near = await api(svc.url, 'PATCH', `/v1/brands/${brandId}`, {
      body: { memory: { knowledge: notes(100, 10_000) } },
    });
    expect(near.status).toBe(200);
    let refusal = '';
    for (let i = 0; i < 10 && !refusal; i++) {
      const r = await client.callTool({
        name: 'add_knowledge',
        arguments: { brandId, title: `more ${i}`, body: 'y'.repeat(10_000) },
      });
      if (r.isError) refusal = (r.content as { text: string }[])[0]?.text ?? '';
    }
    expect(refusal).toContain('Error MEMORY_FULL');
    expect(refusal).toContain('bytes');
    const stored = (await api(svc.url, 'GET', `/v1/brands/${brandId}/memory`)).body;
    expect(Buffer.byteLength(JSON.stringify(stored))).toBeLessThanOrEqual(1024 * 1024 + 4096);
  });

  it('save_to_memory obeys the same example-post cap', async () => {
    // A brand of its own: the brand an earlier test filled to the 1 MiB bound would refuse the
    // 50 examples for the wrong reason, and the brands list's order is not this test's to rely on.
    const brandId = await newBrand(svc, 'Examples');
    const examples = Array.from({ length: 50 }, (_, i) => ({ text: `example ${i}` }));
    expect(
      (
        await api(svc.url, 'PATCH', `/v1/brands/${brandId}`, {
          body: { memory: { example_posts: examples } },
        })
      ).status,
    ).toBe(200);
    const idea = await ok(client, 'create_idea', { brandId, title: 'An example to keep' });
    const [draft] = (await ok(client, 'draft_idea', { ideaId: idea.data.idea.id, platforms: ['x'] })).data
      .drafts;
    const refused = await fails(client, 'save_to_memory', { brandId, from: draft.id, as: 'example_post' });
    expect(refused).toContain('at most 50 example posts');
  });
});

describe('per-key rate limit', () => {
  let svc: TestService;
  let key: string;
  let brandId: string;

  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'demo', keyRateLimit: 3 } });
    key = (await makeKey(svc, ['read', 'write'])).key;
    brandId = (await api(svc.url, 'GET', '/v1/brands')).body.brands[0].id;
  });
  afterAll(() => svc?.close());

  it('refuses the call past the limit with a tool error that names it, until the next minute', async () => {
    // Start at the top of a minute so the three calls share one window.
    svc.clock.set(new Date(Math.ceil(svc.clock.now().getTime() / 60_000) * 60_000 + 1_000));
    const client = await connect(svc, key);
    try {
      for (let i = 0; i < 3; i++) await ok(client, 'list_brands');
      const refused = await fails(client, 'list_brands');
      expect(refused).toContain('Error RATE_LIMITED');
      expect(refused).toContain('3 per 60 s');
      expect(refused).toContain('SERVICE_KEY_RATE_LIMIT');
      expect(refused).toContain('Try again in 59 s');

      const read = await rawMcp(svc, {
        key,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'resources/read',
          params: { uri: `service://brands/${brandId}/memory` },
        },
      });
      expect(read.body.error).toMatchObject({ code: -32000, data: { retry_after_seconds: 59 } });
      for (const [method, params] of [
        ['resources/list', {}],
        [
          'completion/complete',
          { ref: { type: 'ref/prompt', name: 'plan_week' }, argument: { name: 'brandId', value: '' } },
        ],
      ] as const) {
        const res = await rawMcp(svc, { key, body: { jsonrpc: '2.0', id: 2, method, params } });
        expect(res.body.error, method).toMatchObject({
          code: -32000,
          message: expect.stringContaining('per-key limit'),
        });
      }
      // Listing what exists costs nothing and stays open.
      expect(
        (await rawMcp(svc, { key, body: { jsonrpc: '2.0', id: 3, method: 'tools/list' } })).body.result.tools,
      ).toHaveLength(23);

      // Another key has its own allowance.
      const other = await connect(svc, (await makeKey(svc, ['read'])).key);
      await ok(other, 'list_brands');
      await other.close();

      svc.clock.advance(60_000);
      await ok(client, 'list_brands');
    } finally {
      await client.close();
    }
    const log = await api(svc.url, 'GET', '/v1/mcp-calls?tool=list_brands');
    expect(log.body.mcp_calls.some((c: { error_code: string }) => c.error_code === 'RATE_LIMITED')).toBe(
      true,
    );
  });

  it('counts each call of a batch, and refuses batches over 20 messages', async () => {
    svc.clock.advance(60_000);
    const call = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'add_knowledge', arguments: { brandId, title: `batch ${id}`, body: 'b' } },
    });
    const batch = await rawMcp(svc, { key, body: [1, 2, 3, 4, 5].map(call) });
    expect(batch.status).toBe(200);
    const errors = batch.body.map((r: any) => (r.result.isError ? r.result.content[0].text : 'ok'));
    expect(errors.slice(0, 3)).toEqual(['ok', 'ok', 'ok']);
    expect(errors[3]).toContain('RATE_LIMITED');
    expect(errors[4]).toContain('RATE_LIMITED');

    const tooMany = await rawMcp(svc, { key, body: Array.from({ length: 21 }, (_, i) => call(i + 1)) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({ code: -32600, message: 'A batch holds 1 to 20 messages.' });
  });

  it('runs on real time: a sandbox clock advance neither refills a minute nor dates the log or the last use ahead', async () => {
    svc.clock.set(new Date(Math.ceil(svc.clock.now().getTime() / 60_000) * 60_000 + 61_000));
    const client = await connect(svc, key);
    try {
      for (let i = 0; i < 3; i++) await ok(client, 'list_agents');
      expect(await fails(client, 'list_agents')).toContain('RATE_LIMITED');
      // The sandbox clock is for testing schedules: moving it two hours gives the key no new minute.
      const advanced = await api(svc.url, 'POST', '/v1/sandbox/clock/advance', { body: { hours: 2 } });
      expect(advanced.status).toBe(200);
      expect(await fails(client, 'list_agents')).toContain('RATE_LIMITED');
      const real = svc.clock.now().toISOString();
      const log = await api(svc.url, 'GET', '/v1/mcp-calls?tool=list_agents&limit=5');
      expect(log.body.mcp_calls.map((c: { created_at: string }) => c.created_at)).toEqual(
        Array(5).fill(real),
      );
      const keys = await api(svc.url, 'GET', '/v1/api-keys');
      const used = keys.body.api_keys.map((k: { last_used_at: string | null }) => k.last_used_at ?? '');
      expect(used.every((at: string) => at <= real)).toBe(true);
      // A real minute later the key may call again.
      svc.clock.advance(60_000);
      await ok(client, 'list_agents');
    } finally {
      await client.close();
    }
  });

  it('is counted in the database: a second instance on the same data sees the same count', async () => {
    svc.clock.advance(60_000);
    const second = await startTestService('content', {
      dataDir: svc.dataDir,
      clock: svc.clock,
      config: { keyRateLimit: 3, ...sameDatabase(svc) },
    });
    try {
      const a = await connect(svc, key);
      const b = await connect(second, key);
      await ok(a, 'list_brands');
      await ok(b, 'list_brands');
      await ok(a, 'list_brands');
      expect(await fails(b, 'list_brands')).toContain('RATE_LIMITED');
      await a.close();
      await b.close();
    } finally {
      // Last in this file: closing the second instance removes the data directory both share.
      await second.close();
    }
  });
});

describe('a batch yields to other work between its calls', () => {
  it('a callback queued during the first call runs before the second call starts', async () => {
    const svc = await startTestService('content');
    const marks: string[] = [];
    // The real router over HTTP, with an engine that answers at once (no I/O), so only the
    // router's own yield can let the queued callback in between two calls.
    const engine = {
      answer: async (req: { id: number }) => {
        marks.push(`call ${req.id}`);
        if (req.id === 1) setImmediate(() => marks.push('other work'));
        return { jsonrpc: '2.0' as const, id: req.id, result: {} };
      },
    } as unknown as McpEngine;
    const app = express();
    app.use(mcpRouter((svc.handle as ContentHandle).ctx, engine, { bodyLimitBytes: 1 << 20 }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const { port } = server.address() as AddressInfo;
      const key = (await makeKey(svc, ['read'])).key;
      const res = await rawMcp({ url: `http://127.0.0.1:${port}` } as TestService, {
        key,
        body: [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'ping' })),
      });
      expect(res.body).toHaveLength(3);
      expect(marks).toEqual(['call 1', 'other work', 'call 2', 'call 3']);
    } finally {
      server.close();
      await svc.close();
    }
  });
});
