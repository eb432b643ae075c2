import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import { MAX_BATCH, MAX_PENDING, waitingToolCalls } from '../../src/content/services/mcp-call-log.js';
import { ManualClock } from '../../src/platform/clock.js';
import { api, sameDatabase, startTestService, type TestService } from '../helpers/start.js';
import { connect, makeKey, ok, rawMcp } from './mcp-helpers.js';

/**
 * The MCP call log is written in batches after the answers (services/mcp-call-log.ts): every
 * call still reaches the database, by the time this instance's log is read or it shuts down.
 */
describe('the MCP call log, written in batches', () => {
  let svc: TestService;
  beforeEach(async () => {
    svc = await startTestService('content', { config: { seed: 'none' } });
  });
  afterEach(() => svc.close());

  const rowsInDatabase = async (s: TestService) =>
    (
      await (s.handle as unknown as { ctx: ContentContext }).ctx.db.all<{ tool: string }>(
        'SELECT tool FROM mcp_calls',
      )
    ).map((r) => r.tool);

  it('logs every one of many concurrent calls', async () => {
    const { key } = await makeKey(svc, ['read']);
    const client = await connect(svc, key);
    await Promise.all(Array.from({ length: 30 }, () => ok(client, 'list_agents')));
    await client.close();
    const log = await api(svc.url, 'GET', '/v1/mcp-calls?tool=list_agents&limit=100');
    expect(log.status).toBe(200);
    expect(log.body.mcp_calls).toHaveLength(30);
  });

  it("gives ids in the calls' time order, so a batch appends to the primary key's index", async () => {
    // A random id put each row of a batch on a random page of the index (docs/benchmarks.md).
    const clock = new ManualClock();
    const timed = await startTestService('content', { clock, config: { seed: 'none' } });
    try {
      const { key } = await makeKey(timed, ['read']);
      const client = await connect(timed, key);
      for (let i = 0; i < 12; i++) {
        await ok(client, i % 2 ? 'list_agents' : 'list_brands');
        clock.advance(i % 3 ? 1 : 61_000);
      }
      await client.close();
      const log = (await api(timed.url, 'GET', '/v1/mcp-calls?limit=100')).body.mcp_calls;
      const ids: string[] = log.map((e: { id: string }) => e.id);
      expect(ids).toHaveLength(12);
      // Newest first by created_at: the ids, compared as text, fall in the same order.
      expect([...ids].sort().reverse()).toEqual(ids);
      for (const id of ids) expect(id).toMatch(/^mcpc_[0-9A-Za-z]{24}$/);
      expect(new Set(ids).size).toBe(12);
    } finally {
      await timed.close();
    }
  });

  it('writes the pending batch when the instance shuts down, for the next one to read', async () => {
    const { key } = await makeKey(svc, ['read']);
    const client = await connect(svc, key);
    await ok(client, 'list_brands');
    await ok(client, 'list_agents');
    await client.close();
    // Restart at once, inside the batch's wait: the entries must not be lost with the process.
    const next = await svc.restart();
    svc = next;
    expect((await rowsInDatabase(next)).sort()).toEqual(['list_agents', 'list_brands']);
  });

  it('another instance on the same database reads the entries once they are flushed', async () => {
    const { key } = await makeKey(svc, ['read']);
    const other = await startTestService('content', {
      dataDir: svc.dataDir,
      config: { seed: 'none', ...sameDatabase(svc) },
    });
    try {
      const client = await connect(svc, key);
      await ok(client, 'list_agents');
      await client.close();
      // Reading the log on the first instance writes its batch; the second sees it from the database.
      expect((await api(svc.url, 'GET', '/v1/mcp-calls')).body.mcp_calls).toHaveLength(1);
      expect((await api(other.url, 'GET', '/v1/mcp-calls')).body.mcp_calls).toHaveLength(1);
    } finally {
      await other.stop();
    }
  });

  it('holds at most MAX_PENDING entries while the database stalls; drops the rest, counts and logs them', async () => {
    const lines: { msg: string; dropped?: number; level: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const flooded = await startTestService('content', {
      logger,
      config: { seed: 'none', keyRateLimit: 1_000_000 },
    });
    try {
      const { key } = await makeKey(flooded, ['read']);
      const { db } = (flooded.handle as unknown as { ctx: ContentContext }).ctx;
      // The call log's INSERT waits, as behind a locked table or a failover; nothing else does.
      let release!: () => void;
      const stalled = new Promise<void>((resolve) => {
        release = resolve;
      });
      const run = db.run.bind(db);
      db.run = async (sql, params) => {
        if (sql.trimStart().startsWith('INSERT INTO mcp_calls')) await stalled;
        return run(sql, params);
      };
      const calls = MAX_PENDING + MAX_BATCH + 100;
      const batch = Array.from({ length: 20 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'list_agents', arguments: {} },
      }));
      for (let sent = 0; sent < calls; sent += batch.length) {
        const res = await rawMcp(flooded, { key, body: batch });
        expect(res.status).toBe(200);
        // Every call is answered as usual, dropped entry or not.
        for (const reply of res.body) expect(reply.result.isError).toBeUndefined();
      }
      // Bounded: what waits is the cap, plus the batch stuck in its write.
      const waiting = waitingToolCalls(db);
      expect(waiting).toBeGreaterThan(MAX_PENDING);
      expect(waiting).toBeLessThanOrEqual(MAX_PENDING + MAX_BATCH);
      expect(lines.some((l) => l.dropped)).toBe(false);

      release();
      // Reading the log writes what waited; every entry that was kept is there, none twice.
      const log = await api(flooded.url, 'GET', '/v1/mcp-calls?limit=1');
      expect(log.status).toBe(200);
      const counted = await db.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM mcp_calls');
      expect(Number(counted?.n)).toBe(waiting);
      expect(waitingToolCalls(db)).toBe(0);
      // The operator hears how many were dropped, once, not a line per entry.
      const drops = lines.filter((l) => l.dropped);
      expect(drops.map((l) => l.dropped)).toEqual([calls - waiting]);
    } finally {
      await flooded.close();
    }
  });
});
