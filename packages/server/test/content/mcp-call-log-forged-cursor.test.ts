// Outside review of stop 36's call log. The threat: a client writes its own cursor (they are
// base64url JSON: `["<created_at>", "<id>"]`). A tool-less page reads the recent entries off the
// primary key in a range bounded by the cursor's time, and that bound came from Date.parse: a time
// it read as before 1970 ("1900-01-01T…") or could not read at all ("", "2026-11-26Tz") gave the
// top of the range, so the read stepped over every recent entry of the log, none of them below the
// cursor, in one statement (on SQLite, holding the event loop for all of it), on every such page.
// The retention sweep made its bound the same way: a retention of more than about 56 years (up to
// 36,500 days is accepted) put its cut-off before 1970, and each hourly sweep walked the recent
// entries the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentHandle } from '../../src/content/app.js';
import type { ContentContext } from '../../src/content/context.js';
import {
  FIRST_RECENT_ID,
  TIME_ORDERED_SINCE,
} from '../../src/content/db/migrations/024-call-log-recent-by-id.js';
import { RECENT_CALLS } from '../../src/content/db/migrations/025-call-log-marked-by-id.js';
import { callsBeforeSql } from '../../src/content/db/stores/mcp-calls-walk.js';
import { mcpCallsPageSql, mcpCallsStore, type NewMcpCall } from '../../src/content/db/stores/misc-stores.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { randomIds, timeOrderedId } from '../../src/platform/ids.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

const cursorOf = (createdAt: string, id: string) =>
  Buffer.from(JSON.stringify([createdAt, id]), 'utf8').toString('base64url');

describe('a forged call-log cursor or a long retention never walks the recent entries', () => {
  let svc: TestService;
  let db: SqlDatabase;
  const recent = 3_000;
  const rows: NewMcpCall[] = [];
  const call = (id: string, at: number): NewMcpCall => ({
    id,
    key_id: null,
    tool: 'list_agents',
    args: '{}',
    outcome: 'ok',
    error_code: null,
    error_message: null,
    duration_ms: 1,
    created_at: new Date(at).toISOString(),
  });

  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'none', mcpLogRetentionDays: 36_500 } });
    db = (svc.handle as unknown as { ctx: ContentContext }).ctx.db;
    // A few entries from before the cut-over (read off mcp_calls_earlier), then recent ones whose
    // ids sort by time, as this build writes them (marked: read off the primary key).
    const earlier = Date.parse('2026-11-01T00:00:00.000Z');
    for (let i = 0; i < 5; i++) rows.push(call(`mcpc_${String(i).padStart(24, '0')}`, earlier + i));
    const from = Date.parse(TIME_ORDERED_SINCE);
    for (let i = 0; i < recent; i++)
      rows.push(call(timeOrderedId(randomIds, 'mcpc', new Date(from + i)), from + i));
    for (let i = 0; i < rows.length; i += 200) await mcpCallsStore(db).insertMany(rows.slice(i, i + 200));
  }, 60_000);
  afterAll(() => svc?.close());

  /**
   * How many marked entries inside the primary-key range `[FIRST_RECENT_ID, below)` do not meet
   * `condition`: those a read of that range steps over without taking one.
   */
  async function steppedOver(below: unknown, condition: string, params: unknown[]) {
    const row = await db.get<{ n: number | string }>(
      `SELECT count(*) AS n FROM mcp_calls
        WHERE ${RECENT_CALLS} AND id >= '${FIRST_RECENT_ID}' AND id < ? AND NOT (${condition})`,
      [below as string, ...(params as string[])],
    );
    return Number(row?.n);
  }

  // Times a cursor this list returns never holds: before 1970, empty, not a time, and a time that
  // is not in the canonical form (it sorts among 01.500-01.599, which Date.parse read as 01.500).
  const forged = ['1900-01-01T00:00:00.000Z', '', '2026-11-26Tz', '2026-11-27T00:00:01.5Z'];

  it.each(forged)('a cursor at %j is answered rightly over HTTP', async (createdAt) => {
    const id = 'mcpc_zzzzzzzzzzzzzzzzzzzzzzzz';
    const page = await api(svc.url, 'GET', `/v1/mcp-calls?limit=10&after=${cursorOf(createdAt, id)}`);
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    // What the cursor asks for: entries below (created_at, id), newest first.
    const below = rows
      .filter((r) => r.created_at < createdAt || (r.created_at === createdAt && r.id < id))
      .sort((x, y) =>
        x.created_at === y.created_at ? (x.id < y.id ? 1 : -1) : x.created_at < y.created_at ? 1 : -1,
      )
      .slice(0, 10)
      .map((r) => r.id);
    expect(page.body.mcp_calls.map((c: { id: string }) => c.id)).toEqual(below);
  });

  it.each(forged)('a cursor at %j bounds the recent read to entries it can take', async (createdAt) => {
    const after = cursorOf(createdAt, 'mcpc_zzzzzzzzzzzzzzzzzzzzzzzz');
    const { params } = mcpCallsPageSql({}, 10, after);
    // The recent read's first parameter is its id bound (stores/mcp-calls-walk.ts, RECENT_IN_RANGE).
    // The old code's bound for these was the top of the range: all 3,000 stepped over.
    expect(
      await steppedOver(params[0], '(created_at, id) < (?, ?)', [createdAt, 'mcpc_zzzzzzzzzzzzzzzzzzzzzzzz']),
    ).toBe(0);
  });

  it('a retention cut-off before 1970 bounds the sweep to entries it deletes, and deletes none', async () => {
    const before = new Date(Date.now() - 36_500 * 24 * 60 * 60_000).toISOString();
    expect(before < '1970').toBe(true);
    const { params } = callsBeforeSql(before, 500, db.dialect);
    // The recent side's id bound is its third parameter; the old code's was the top of the range.
    expect(await steppedOver(params[2], 'created_at < ?', [before])).toBe(0);
    // The sweep itself, as the background pass runs it with SERVICE_MCP_LOG_RETENTION_DAYS=36500.
    expect(await (svc.handle as ContentHandle).backgroundPass()).toBe(true);
    const count = await db.get<{ n: number | string }>('SELECT count(*) AS n FROM mcp_calls');
    expect(Number(count?.n)).toBe(rows.length);
  });
});
