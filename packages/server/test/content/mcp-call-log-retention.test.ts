import { describe, expect, it } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import { TIME_ORDERED_SINCE } from '../../src/content/db/migrations/024-call-log-recent-by-id.js';
import {
  CALL_LOG_SWEEP_LEASE,
  sweepCallLog,
  sweepCallLogIfDue,
} from '../../src/content/services/mcp-call-retention.js';
import { ManualClock } from '../../src/platform/clock.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { runOutLease } from '../helpers/leases.js';
import { twoInstancesForEachTest } from '../helpers/race.js';
import { api, startTestService, type TestService } from '../helpers/start.js';
import { connect, makeKey, ok } from './mcp-helpers.js';

const DAY = 24 * 60 * 60_000;
const handle = (s: TestService) => s.handle as ContentHandle;

/** Makes `count` calls of `tool` over MCP with `key`, on the service's clock as it stands. */
async function calls(svc: TestService, key: string, tool: string, count: number) {
  const client = await connect(svc, key);
  try {
    for (let i = 0; i < count; i++) await ok(client, tool);
  } finally {
    await client.close();
  }
}

/** Every entry of `GET /v1/mcp-calls` (with `query`), following the cursors. */
async function wholeLog(svc: TestService, query = '') {
  const ids: { id: string; tool: string; created_at: string }[] = [];
  for (let after = ''; ; ) {
    const page = await api(svc.url, 'GET', `/v1/mcp-calls?limit=100${query}${after}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    ids.push(...page.body.mcp_calls);
    if (!page.body.next_after) return ids;
    after = `&after=${page.body.next_after}`;
  }
}

/** The number of entries each DELETE on the call log took, counted at the database handle. */
function countDeletes(db: SqlDatabase) {
  const deletes: number[] = [];
  const run = db.run.bind(db);
  db.run = async (sql, params) => {
    const r = await run(sql, params);
    if (sql.startsWith('DELETE FROM mcp_calls')) deletes.push(r.changes);
    return r;
  };
  return deletes;
}

const leaseHeld = async (db: SqlDatabase) =>
  (await db.get('SELECT owner FROM leases WHERE name = ?', [CALL_LOG_SWEEP_LEASE])) !== undefined;

describe('MCP call log retention (SERVICE_MCP_LOG_RETENTION_DAYS)', () => {
  // Before the cut-over to time-ordered ids, so the log holds entries of both kinds (migration 024).
  const start = Date.parse(TIME_ORDERED_SINCE) - 7 * DAY;
  const clock = new ManualClock(start);
  const pair = twoInstancesForEachTest('content', {
    clock,
    config: { seed: 'none', mcpLogRetentionDays: 30 },
  });

  it('the background pass deletes calls older than the retention and keeps the recent ones', async () => {
    clock.set(start);
    const { a } = pair;
    const { key, id: keyId } = await makeKey(a, ['read']);
    await calls(a, key, 'list_agents', 3); // earlier entries (random-era ids' index)
    clock.advance(10 * DAY);
    await calls(a, key, 'list_brands', 2); // time-ordered ids
    expect(await wholeLog(a)).toHaveLength(5);

    clock.advance(25 * DAY); // the first calls are 35 days old, the second 25
    expect(await handle(a).backgroundPass()).toBe(true);
    const left = await wholeLog(a);
    expect(left.map((c) => c.tool)).toEqual(['list_brands', 'list_brands']);
    // Every read of the log agrees: by key and by tool.
    expect(await wholeLog(a, `&key_id=${keyId}`)).toEqual(left);
    expect(await wholeLog(a, '&tool=list_agents')).toEqual([]);

    // Due again only when its lease runs out: past their retention, the later calls stay until then.
    clock.advance(10 * DAY);
    expect(await handle(a).backgroundPass()).toBe(true);
    expect(await wholeLog(a)).toHaveLength(2);
    await runOutLease(handle(a).db, CALL_LOG_SWEEP_LEASE);
    expect(await handle(a).backgroundPass()).toBe(true);
    expect(await wholeLog(a)).toEqual([]);
  });

  it('deletes in bounded batches, and a sweep stopped at its limit lets the next pass go on', async () => {
    clock.set(Date.parse(TIME_ORDERED_SINCE) + DAY);
    const { a } = pair;
    const { key } = await makeKey(a, ['read']);
    await calls(a, key, 'list_agents', 23);
    clock.advance(31 * DAY);
    await calls(a, key, 'list_brands', 4);
    await wholeLog(a); // written
    const deletes = countDeletes(handle(a).db);
    const limits = { batch: 5, batchesPerSweep: 3 };

    const first = await sweepCallLogIfDue(handle(a).ctx, limits);
    expect(first).toMatchObject({ deleted: 15, batches: 3, finished: false });
    expect(deletes).toEqual([5, 5, 5]);
    // Given back, so the next pass, on any instance, goes on.
    expect(await leaseHeld(handle(a).db)).toBe(false);
    const second = await sweepCallLogIfDue(handle(a).ctx, limits);
    expect(second).toMatchObject({ deleted: 8, batches: 2, finished: true });
    expect(deletes).toEqual([5, 5, 5, 5, 3]);
    // Finished: kept for the hour, so no sweep runs until it runs out.
    expect(await leaseHeld(handle(a).db)).toBe(true);
    expect(await sweepCallLogIfDue(handle(a).ctx, limits)).toBeNull();
    expect(deletes).toHaveLength(5);
    expect((await wholeLog(a)).map((c) => c.tool)).toEqual(Array(4).fill('list_brands'));
  });

  it('two instances do not both sweep; and sweeps that overlap delete each entry once, without error', async () => {
    clock.set(Date.parse(TIME_ORDERED_SINCE) + DAY);
    const { a, b } = pair;
    const { key } = await makeKey(a, ['read']);
    await calls(a, key, 'list_agents', 12);
    clock.advance(31 * DAY);
    await calls(b, key, 'list_brands', 3);
    await wholeLog(b);
    await wholeLog(a);
    const onA = countDeletes(handle(a).db);
    const onB = countDeletes(handle(b).db);
    const limits = { batch: 4, batchesPerSweep: 10 };

    const [x, y] = await Promise.all([
      sweepCallLogIfDue(handle(a).ctx, limits),
      sweepCallLogIfDue(handle(b).ctx, limits),
    ]);
    // One took the lease and swept; the other ran no DELETE at all.
    expect([x, y].filter((s) => s !== null)).toHaveLength(1);
    expect(onA.length === 0 || onB.length === 0).toBe(true);
    expect((x ?? y)?.deleted).toBe(12);

    // Without the lease (a holder paused past its end, say): both sweep at once, harmlessly.
    clock.advance(31 * DAY); // now the 3 list_brands calls are past the retention too
    const [p, q] = await Promise.all([
      sweepCallLog(handle(a).ctx, limits),
      sweepCallLog(handle(b).ctx, limits),
    ]);
    expect((p?.deleted ?? 0) + (q?.deleted ?? 0)).toBe(3);
    expect(await wholeLog(a)).toEqual([]);
  });

  it('paging the log while the sweep runs neither fails nor repeats an entry', async () => {
    clock.set(Date.parse(TIME_ORDERED_SINCE) + DAY);
    const { a, b } = pair;
    const { key } = await makeKey(a, ['read']);
    await calls(a, key, 'list_agents', 20);
    clock.advance(31 * DAY);
    await calls(a, key, 'list_brands', 10);
    const recent = (await wholeLog(a)).slice(0, 10).map((c) => c.id);

    // Pages of 6, newest first, on instance b; a batch of 4 swept on instance a before each page.
    const seen: { id: string; created_at: string }[] = [];
    for (let after = ''; ; ) {
      await sweepCallLog(handle(a).ctx, { batch: 4, batchesPerSweep: 1 });
      const page = await api(b.url, 'GET', `/v1/mcp-calls?limit=6${after}`);
      expect(page.status, JSON.stringify(page.body)).toBe(200);
      seen.push(...page.body.mcp_calls);
      if (!page.body.next_after) break;
      after = `&after=${page.body.next_after}`;
    }
    const ids = seen.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.slice(0, 10)).toEqual(recent);
    // Still newest first throughout, and of the old calls only those not yet swept were seen.
    const keys = seen.map((c) => `${c.created_at} ${c.id}`);
    expect(keys).toEqual([...keys].sort().reverse());
    expect(ids.length).toBeLessThan(30);
  });
});

describe('MCP call log retention of 0 days', () => {
  it('keeps every call, and no instance takes the sweep', async () => {
    const svc = await startTestService('content', {
      clock: new ManualClock(Date.parse(TIME_ORDERED_SINCE) - DAY),
      config: { seed: 'none', mcpLogRetentionDays: 0 },
    });
    try {
      const { key } = await makeKey(svc, ['read']);
      await calls(svc, key, 'list_agents', 2);
      svc.clock.advance(2 * DAY);
      await calls(svc, key, 'list_brands', 2);
      svc.clock.advance(20 * 365 * DAY);
      expect(await handle(svc).backgroundPass()).toBe(true);
      expect((await wholeLog(svc)).map((c) => c.tool)).toEqual([
        'list_brands',
        'list_brands',
        'list_agents',
        'list_agents',
      ]);
      expect(await leaseHeld(handle(svc).db)).toBe(false);
    } finally {
      await svc.close();
    }
  });
});
