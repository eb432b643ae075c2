// Outside review of stop 36 (branch review2). The threat: an audit log that leaves entries out.
// Migration 024 reads "recent" call-log entries (created at or after 2026-11-27, id inside the
// range time-ordered ids take) by primary key, trusting the id to sort as its time. A build older
// than the time-ordered ids (before 2026-11-26) writes 24 random base62 characters; one still
// running after the cut-off (a deployment upgraded days later, or an older instance beside a new
// one) writes such ids with a recent created_at. About 1 in 125 of them starts with `0` and a
// character past the cut-off's (`mcpc_0W…` to `mcpc_0z…`), inside the recent range: read by id,
// it sorts as a time up to 2081. So it took a place in every first page's recent read and was
// never shown where its created_at puts it, and the page walk skipped it. Migration 025 marks the
// entries read by id instead (id_sorts_by_time), so a writer that cannot say leaves its entries
// to the (created_at, id) index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIME_ORDERED_SINCE } from '../../src/content/db/migrations/024-call-log-recent-by-id.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { type McpCallRow, mcpCallsStore } from '../../src/content/db/stores/misc-stores.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { randomIds, timeOrderedId } from '../../src/platform/ids.js';
import { callRow, countedTimeId, olderBuildInsert, writeCalls } from '../helpers/call-log-rows.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';

describe('the MCP call log with an older build writing after the cut-off', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-call-log-older-'));
  let testDb: TestDatabase | undefined;
  let db: SqlDatabase;
  const rows: McpCallRow[] = [];

  beforeAll(async () => {
    testDb = await openTestDatabase('content', contentMigrations, dir);
    db = testDb.db;
    const start = Date.parse(TIME_ORDERED_SINCE) + 60_000;
    for (let i = 0; i < 300; i++) {
      const at = new Date(start + i);
      // Entry 100 comes from an older build: a random id, which happens to start `0z`.
      const id = i === 100 ? 'mcpc_0zQ4mT7kLp2RfX9cVbN3sWq1' : countedTimeId(i, at);
      rows.push(callRow({ id, at, tool: 'list_brands', args: { n: i } }));
    }
    await writeCalls(db, rows, rows.length);
  }, 60_000);
  afterAll(async () => {
    await testDb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pages every entry once, newest first, the older build’s one where its time puts it', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await mcpCallsStore(db).list({}, 50, after);
      seen.push(...page.items.map((r) => r.id));
      if (!page.next_after) break;
      after = page.next_after;
    }
    expect(seen).toEqual(rows.map((r) => r.id).reverse());
  });

  it('lists once each entry of three builds writing side by side in a rolling upgrade, and sweeps them all', async () => {
    // Random ids (the first 40 inside the range time-ordered ids take), time-ordered ids written
    // without the mark, and this build's: interleaved in time, each writer in its own batches.
    const start = Date.parse(TIME_ORDERED_SINCE) + 3_600_000;
    const writers: McpCallRow[][] = [[], [], []];
    for (let i = 0; i < 600; i++) {
      const at = new Date(start + Math.floor(i / 2));
      const writer = i % 3;
      const id =
        writer === 0
          ? i < 120
            ? `mcpc_0${'Xz'[i % 2]}${randomIds.make('mcpc').slice(7)}`
            : randomIds.make('mcpc')
          : timeOrderedId(randomIds, 'mcpc', at);
      writers[writer]!.push(callRow({ id, at, tool: 'list_brands', args: { n: i } }));
    }
    for (let i = 0; i < 200; i += 50) {
      await olderBuildInsert(db, writers[0]!.slice(i, i + 50));
      await olderBuildInsert(db, writers[1]!.slice(i, i + 50));
      await writeCalls(db, writers[2]!.slice(i, i + 50));
    }
    const all = [...rows, ...writers.flat()].sort((x, y) =>
      x.created_at === y.created_at ? (x.id < y.id ? -1 : 1) : x.created_at < y.created_at ? -1 : 1,
    );
    for (const size of [7, 50, 1_000]) {
      const seen: string[] = [];
      for (let after: string | undefined; ; ) {
        const page = await mcpCallsStore(db).list({}, size, after);
        seen.push(...page.items.map((r) => r.id));
        if (!page.next_after) break;
        after = page.next_after;
      }
      expect(seen).toEqual(all.map((r) => r.id).reverse());
    }
    // The retention sweep finds each of them on the same two reads.
    const before = new Date(start + 1_000).toISOString();
    let deleted = 0;
    for (let n = -1; n !== 0; deleted += n) n = await mcpCallsStore(db).deleteBefore(before, 64, db.dialect);
    expect(deleted).toBe(all.length);
    expect((await mcpCallsStore(db).list({}, 10)).items).toEqual([]);
  });
});
