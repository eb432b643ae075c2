import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContentContext } from '../../src/content/context.js';
import {
  MAX_PENDING,
  MAX_PENDING_PER_KEY,
  waitingToolCalls,
} from '../../src/content/services/mcp-call-log.js';
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
});

/** Its own service with a manual clock: nothing started beside it for nothing. */
describe('the MCP call log ids', () => {
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
});

/**
 * The cap on what waits for the database. These tests start their own service with a stalled
 * log and make thousands of calls: no other service is started beside it (one started for
 * nothing cost each a database and a migration, under load a good part of its time).
 */
// Thousands of calls: on a loaded 2-core machine this took 12-17 s of the default 20 s.
describe('the MCP call log while the database stalls', { timeout: 60_000 }, () => {
  /** A service whose call-log INSERTs wait until `release()`, as behind a locked table or a failover. */
  async function stalledLog() {
    const lines: { msg: string; dropped?: number; level: number }[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const flooded = await startTestService('content', {
      logger,
      config: { seed: 'none', keyRateLimit: 1_000_000 },
    });
    const { db } = (flooded.handle as unknown as { ctx: ContentContext }).ctx;
    let release!: () => void;
    const stalled = new Promise<void>((resolve) => {
      release = resolve;
    });
    let hit!: () => void;
    const stuck = new Promise<void>((resolve) => {
      hit = resolve;
    });
    const run = db.run.bind(db);
    db.run = async (sql, params) => {
      if (sql.trimStart().startsWith('INSERT INTO mcp_calls')) {
        hit();
        await stalled;
      }
      return run(sql, params);
    };
    /** `calls` list_agents calls with `key`, 20 to a JSON-RPC batch; every one answered as usual. */
    const send = async (key: string, calls: number) => {
      for (let sent = 0; sent < calls; sent += 20) {
        const batch = Array.from({ length: Math.min(20, calls - sent) }, (_, i) => ({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'list_agents', arguments: {} },
        }));
        const res = await rawMcp(flooded, { key, body: batch });
        expect(res.status).toBe(200);
        // Every call is answered as usual, dropped entry or not.
        for (const reply of res.body) expect(reply.result.isError).toBeUndefined();
      }
    };
    /** Rows written, by key id, once reading the log has written what waited. */
    const writtenByKey = async () => {
      release();
      const log = await api(flooded.url, 'GET', '/v1/mcp-calls?limit=1');
      expect(log.status).toBe(200);
      const rows = await db.all<{ key_id: string; n: number | string }>(
        'SELECT key_id, COUNT(*) AS n FROM mcp_calls GROUP BY key_id',
      );
      return new Map(rows.map((r) => [r.key_id, Number(r.n)]));
    };
    /**
     * One call with `key`, then wait until its entry is in the stuck write (the flush timer takes
     * it alone): what every later call queues is then exact, however fast the engine is.
     */
    const stallWith = async (key: string) => {
      await send(key, 1);
      await stuck;
      expect(waitingToolCalls(db)).toBe(1);
    };
    /** Stops the stall (a failed assertion must not leave close() waiting on the stuck write). */
    const close = () => {
      release();
      return flooded.close();
    };
    return { flooded, db, lines, send, stallWith, writtenByKey, close };
  }

  it('holds at most MAX_PENDING entries while the database stalls; drops the rest, counts and logs them', async () => {
    const { flooded, db, lines, send, stallWith, writtenByKey, close } = await stalledLog();
    try {
      // Four keys one call past their share: each queues its share and has one dropped, and the
      // queue is then full; a fifth key finds it full. The first key goes alone, so its dropped
      // call can only be its share's doing (the queue is far from full). The next three go side
      // by side: the queue holds at most the four shares, so it is full only once all four are,
      // and whatever the order no call of theirs meets the cap. The fewest calls that prove both
      // bounds (MAX_PENDING of them must be made): 4,025 in 205 requests, where 5,501 in 276
      // requests one after another ran close to the 20 s timeout under load.
      const keys = await Promise.all([0, 1, 2, 3, 4].map((i) => makeKey(flooded, ['read'], `flood ${i}`)));
      await stallWith(keys[0]?.key as string);
      const over = MAX_PENDING_PER_KEY + 1;
      const late = 20;
      await send(keys[0]?.key as string, over);
      await Promise.all(keys.slice(1, 4).map(({ key }) => send(key, over)));
      await send(keys[4]?.key as string, late);
      // Bounded: what waits is the cap, plus the one entry stuck in its write.
      const waiting = waitingToolCalls(db);
      expect(waiting).toBe(MAX_PENDING + 1);
      expect(lines.some((l) => l.dropped)).toBe(false);
      // Reading the log writes what waited; every entry that was kept is there, none twice.
      const written = await writtenByKey();
      expect(keys.map(({ id }) => written.get(id) ?? 0)).toEqual([
        1 + MAX_PENDING_PER_KEY,
        MAX_PENDING_PER_KEY,
        MAX_PENDING_PER_KEY,
        MAX_PENDING_PER_KEY,
        0,
      ]);
      expect(waitingToolCalls(db)).toBe(0);
      // The operator hears how many were dropped, once, not a line per entry.
      const drops = lines.filter((l) => l.dropped);
      expect(drops.map((l) => l.dropped)).toEqual([4 * over + late - MAX_PENDING]);
    } finally {
      await close();
    }
  });

  it("one key's flood takes at most its share: another key's calls are still recorded", async () => {
    const { flooded, db, lines, send, stallWith, writtenByKey, close } = await stalledLog();
    try {
      const flood = await makeKey(flooded, ['read'], 'flood');
      const quiet = await makeKey(flooded, ['read'], 'quiet');
      await stallWith(flood.key);
      await send(flood.key, MAX_PENDING_PER_KEY + 100);
      await send(quiet.key, 40);
      expect(waitingToolCalls(db)).toBe(1 + MAX_PENDING_PER_KEY + 40);
      const written = await writtenByKey();
      expect(written.get(flood.id)).toBe(1 + MAX_PENDING_PER_KEY);
      expect(written.get(quiet.id)).toBe(40);
      expect(lines.filter((l) => l.dropped).map((l) => l.dropped)).toEqual([100]);
    } finally {
      await close();
    }
  });
});
