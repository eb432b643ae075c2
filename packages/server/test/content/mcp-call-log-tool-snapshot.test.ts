import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIME_ORDERED_SINCE } from '../../src/content/db/migrations/024-call-log-recent-by-id.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { MAX_CALLS_EXAMINED, mcpCallsStore } from '../../src/content/db/stores/misc-stores.js';
import type { SqlDatabase, SqlExecutor, SqlParams } from '../../src/platform/db/sql.js';
import { callRow, writeCalls } from '../helpers/call-log-rows.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';

/**
 * A tool's page (`GET /v1/mcp-calls?tool=…`) that ends short goes on from the last entry it
 * examined. That edge was read by a second statement after the page: a batch that landed inside
 * the examined window between the two (another instance's, written late: entries carry the time of
 * the call, not of the write) pushed the edge newer than the hits, and the next page examined some
 * entries again, repeating their hits. The seam: an executor that writes such a batch right after
 * the page's first read returns, deterministically between the old code's two reads.
 */
describe('a tool page of the MCP call log under a concurrent write', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-call-log-snapshot-'));
  let testDb: TestDatabase | undefined;
  let db: SqlDatabase;
  // Even milliseconds for the log, odd ones for the late batch inside the first page's window.
  const start = Date.parse(TIME_ORDERED_SINCE) + 60_000;
  const total = MAX_CALLS_EXAMINED + 500;
  const entry = (ms: number, tool: string) => callRow({ at: start + ms, tool });
  const log = Array.from({ length: total }, (_, i) =>
    entry(2 * i, i % 50 === 0 ? 'get_digest' : 'list_agents'),
  );
  // Just above the first page's edge (entry total - MAX_CALLS_EXAMINED), in the window it examined.
  const edgeAt = total - MAX_CALLS_EXAMINED;
  const late = Array.from({ length: 300 }, (_, k) => entry(2 * (edgeAt + k) + 1, 'list_agents'));

  beforeAll(async () => {
    testDb = await openTestDatabase('content', contentMigrations, dir);
    db = testDb.db;
    await writeCalls(db, log);
  }, 60_000);
  afterAll(async () => {
    await testDb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** `db`, writing the late batch once, right after the first read it answers. */
  function writesLateAfterFirstRead(): SqlExecutor {
    let written = false;
    const lateOnce = async () => {
      if (written) return;
      written = true;
      await writeCalls(db, late, late.length);
    };
    return {
      async get<T>(sql: string, params?: SqlParams) {
        const row = await db.get<T>(sql, params);
        await lateOnce();
        return row;
      },
      async all<T>(sql: string, params?: SqlParams) {
        const rows = await db.all<T>(sql, params);
        await lateOnce();
        return rows;
      },
      run: (sql, params) => db.run(sql, params),
    };
  }

  it('repeats no entry, and lists every one written before the walk began', async () => {
    const first = await mcpCallsStore(writesLateAfterFirstRead()).list({ tool: 'get_digest' }, 100);
    // Short: the window held MAX_CALLS_EXAMINED / 50 of the tool's entries, fewer than asked.
    expect(first.items.length).toBe(MAX_CALLS_EXAMINED / 50);
    expect(first.has_more).toBe(true);
    const seen = first.items.map((r) => r.id);
    for (let after = first.next_after; after; ) {
      const page = await mcpCallsStore(db).list({ tool: 'get_digest' }, 100, after);
      seen.push(...page.items.map((r) => r.id));
      after = page.next_after;
    }
    // The late batch is another tool's: the tool's entries are exactly the log's, once each.
    expect(seen).toEqual(
      log
        .filter((r) => r.tool === 'get_digest')
        .map((r) => r.id)
        .reverse(),
    );
  });
});
