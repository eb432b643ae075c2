import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIME_ORDERED_SINCE } from '../../src/content/db/migrations/024-call-log-recent-by-id.js';
import { idSortsByTime } from '../../src/content/db/migrations/025-call-log-marked-by-id.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import { callsBeforeSql } from '../../src/content/db/stores/mcp-calls-walk.js';
import {
  type McpCallRow,
  type McpCallsFilter,
  mcpCallsPageSql,
  mcpCallsStore,
} from '../../src/content/db/stores/misc-stores.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { callRow, countedId, countedTimeId, olderBuildInsert } from '../helpers/call-log-rows.js';
import {
  createTestPostgresDatabase,
  TEST_POOL_SIZE,
  type TestPostgresDatabase,
  testEngine,
} from '../helpers/database.js';

/**
 * Migration 023 makes the call log's two indexes ascending, so a batch of entries (oldest first)
 * lands at the right edge of each, where both engines append (issue 20). Migration 024 drops
 * `mcp_calls_created`: recent entries are read by their time-ordered ids, earlier ones off a
 * partial index. What must not change: `GET /v1/mcp-calls` is read off indexes on both engines,
 * newest first, with the same ids and cursors, on a database that held entries before the
 * migrations, random ids and time-ordered ones, and ids of neither kind after the cut-off.
 * Migration 025 marks the entries read by id, as only a build that knows the mark can say.
 */
/** The `i`th entry a test writes: its tool and key follow `i`, and every `keyless`th has no key. */
const entry = (i: number, id: string, at: Date, keyless: number): McpCallRow =>
  callRow({
    id,
    at,
    key_id: i % keyless === 0 ? null : `key_${i % 3}`,
    tool: i % 2 ? 'list_agents' : 'list_brands',
    args: { n: i },
  });

describe('the MCP call log indexes (migrations 023, 024 and 025)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-call-log-idx-'));
  let pgDatabase: TestPostgresDatabase | undefined;
  let db: SqlDatabase;
  const rows: McpCallRow[] = [];
  const open = (upTo: number) =>
    openServiceDatabase({
      service: 'content',
      dataDir: dir,
      databaseUrl: pgDatabase?.url,
      poolSize: TEST_POOL_SIZE,
      migrations: contentMigrations.filter((m) => m.id <= upTo),
    });

  beforeAll(async () => {
    pgDatabase = testEngine === 'postgres' ? await createTestPostgresDatabase() : undefined;
    // Entries written before the migrations, in the batches the log writes (oldest first), by the
    // builds of then. Enough of them that PostgreSQL reads a tool's walk (MAX_CALLS_EXAMINED
    // entries) off the indexes: on a log of 4,000, with migration 025's cheap condition, it read the
    // whole table for the 1,200 entries below a cursor instead, rightly so at that size.
    const before = await open(22);
    const start = Date.parse('2026-11-01T00:00:00.000Z');
    for (let i = 0; i < 10_000; i++)
      // Two entries a millisecond: the id breaks the tie.
      rows.push(entry(i, countedId(i), new Date(start + Math.floor(i / 2)), 7));
    // Entries from after the cut-off: time-ordered ids (three a millisecond), and now and then one
    // whose id is not (a build older than the time-ordered ids, still running beside).
    const recent = Date.parse(TIME_ORDERED_SINCE) - 200;
    for (let i = 0; i < 1_200; i++) {
      const at = new Date(recent + Math.floor(i / 3));
      const id =
        i % 97 === 5
          ? `mcpc_${['zz', '00', '0z'][i % 3]}x${String(i).padStart(21, '0')}`
          : countedTimeId(i, at);
      rows.push(entry(i, id, at, 5));
    }
    // The order the list promises, whatever the ids.
    rows.sort((x, y) => (x.created_at === y.created_at ? cmp(x.id, y.id) : cmp(x.created_at, y.created_at)));
    for (let i = 0; i < rows.length; i += 200) await olderBuildInsert(before, rows.slice(i, i + 200));
    await before.close();
    db = await open(25);
  }, 60_000);
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  afterAll(async () => {
    await db?.close();
    await pgDatabase?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are ascending, and the time-ordered entries have no (created_at, id) index of their own', async () => {
    if (db.dialect === 'sqlite') {
      const indexes = await db.all<{ name: string; partial: number }>(
        "SELECT name, partial FROM pragma_index_list('mcp_calls') WHERE origin = 'c' ORDER BY name",
      );
      expect(indexes).toEqual([
        { name: 'mcp_calls_earlier', partial: 1 },
        { name: 'mcp_calls_key', partial: 0 },
      ]);
      for (const index of ['mcp_calls_earlier', 'mcp_calls_key']) {
        const columns = await db.all<{ key: number; desc: number; name: string | null }>(
          `SELECT * FROM pragma_index_xinfo('${index}')`,
        );
        const keyed = columns.filter((c) => c.key === 1);
        expect(keyed.map((c) => c.name)).toEqual(
          index === 'mcp_calls_key' ? ['key_id', 'created_at', 'id'] : ['created_at', 'id'],
        );
        expect(keyed.map((c) => c.desc)).toEqual(keyed.map(() => 0));
      }
    } else {
      const defs = await db.all<{ indexname: string; indexdef: string }>(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'mcp_calls' AND indexname <> 'mcp_calls_pkey' ORDER BY indexname",
      );
      expect(defs.map((d) => d.indexdef.replace(/^.* USING btree /, '').replace(/ WHERE .*/, ''))).toEqual([
        '(created_at, id)',
        '(key_id, created_at, id)',
      ]);
      expect(defs.map((d) => d.indexname)).toEqual(['mcp_calls_earlier', 'mcp_calls_key']);
    }
  });

  it('mark as read by id exactly the entries whose ids are their time, on both engines (migration 025)', async () => {
    const marked = await db.all<{ id: string }>(
      'SELECT id FROM mcp_calls WHERE id_sorts_by_time = TRUE ORDER BY id',
    );
    const expected = rows.filter((r) => idSortsByTime(r.id, r.created_at)).map((r) => r.id);
    // Time-ordered ids from before the cut-off and the odd random id after it stay unmarked.
    expect(expected.length).toBeGreaterThan(500);
    expect(expected.length).toBeLessThan(rows.filter((r) => r.created_at >= TIME_ORDERED_SINCE).length);
    expect(marked.map((r) => r.id)).toEqual(expected.sort());
  });

  const filters: McpCallsFilter[] = [
    {},
    { keyId: 'key_1' },
    { tool: 'list_agents' },
    { keyId: 'key_2', tool: 'list_brands' },
  ];

  it('pages every entry newest first, with the cursors of before, for every filter', async () => {
    const store = mcpCallsStore(db);
    for (const filter of filters) {
      const expected = rows
        .filter(
          (r) => (!filter.keyId || r.key_id === filter.keyId) && (!filter.tool || r.tool === filter.tool),
        )
        .map((r) => r.id)
        .reverse();
      expect(expected.length).toBeGreaterThan(300);
      const seen: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.list(filter, 250, after);
        seen.push(...page.items.map((r) => r.id));
        if (!page.next_after) break;
        after = page.next_after;
      }
      expect(seen).toEqual(expected);
    }
  });

  it('are what the list reads, newest first, sorting no more than the page it merges', async () => {
    const cursorAt = (r: McpCallRow | undefined) =>
      Buffer.from(JSON.stringify([r?.created_at, r?.id])).toString('base64url');
    const cursors = [undefined, cursorAt(rows[1400]), cursorAt(rows.at(-300))];
    if (db.dialect === 'postgres') await db.run('ANALYZE mcp_calls');
    for (const filter of filters)
      for (const after of cursors) {
        const { sql, params } = mcpCallsPageSql(filter, 50, after);
        if (db.dialect === 'sqlite') {
          const steps = await db.all<{ id: number; parent: number; detail: string }>(
            `EXPLAIN QUERY PLAN ${sql}`,
            params,
          );
          const plan = steps.map((r) => r.detail).join(' | ');
          if (filter.keyId) {
            expect(plan).toMatch(/USING INDEX mcp_calls_key/);
            // The key's entries come off its index in order; a tool's page sorts only what it
            // examined (materialized, at most the walk's bound): for its hits and its last entry.
            expect(plan).not.toMatch(/TEMP B-TREE/);
          } else {
            expect(plan).toMatch(
              /SEARCH mcp_calls USING INDEX sqlite_autoindex_mcp_calls_1 \(id>\? AND id<\?\)/,
            );
            expect(plan).toMatch(/USING INDEX mcp_calls_earlier/);
            // Each read comes off its index in order; only their outputs (at most the walk's bound
            // each) are sorted, for the merge: a TEMP B-TREE sits under LEFT or RIGHT of it.
            const parentOf = (s: { parent: number }) => steps.find((p) => p.id === s.parent)?.detail;
            const sorts = steps.filter((s) => s.detail.includes('TEMP B-TREE'));
            // A tool's page also sorts the examined entries (at most the walk's bound, materialized
            // once) twice more: for its hits and for the last entry examined, one statement.
            expect(sorts.map(parentOf).sort()).toEqual(['LEFT', 'RIGHT']);
          }
          expect(plan).not.toMatch(/SCAN mcp_calls(?! USING)/);
        } else {
          const [row] = await db.all<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
          const plan = JSON.stringify(row?.['QUERY PLAN']);
          // A key's tool page reads the key's walk whole (MAX_CALLS_EXAMINED entries, materialized
          // once so its hits and its last entry come from one snapshot), planned for all of it: on
          // this small log, where the key holds a third of the entries, PostgreSQL judges reading
          // the table and keeping the newest cheaper than as many fetches at random (on a log of a
          // few hundred thousand it reads the key's index). The page before, planned for its
          // LIMIT, did the same for a rare tool. Every other page stays on the indexes.
          if (!(filter.keyId && filter.tool)) expect(plan).not.toContain('Seq Scan');
          if (filter.keyId) {
            // Either index, read backwards, may serve a key's page: PostgreSQL picks by its statistics.
            if (!filter.tool) expect(plan).toMatch(/"Index Name":"mcp_calls_(earlier|key|pkey)"/);
          } else {
            expect(plan).toMatch(/"Index Name":"mcp_calls_pkey"/);
            expect(plan).toMatch(/"Index Name":"mcp_calls_earlier"/);
          }
        }
      }
  });

  /** Cut-offs among the entries before the cut-over, at it, and among the time-ordered ones. */
  const cutOffs = () => [rows[1400]!.created_at, TIME_ORDERED_SINCE, rows.at(-300)!.created_at];

  it("are what the retention sweep deletes by: a range of each, in the index's order, never a scan", async () => {
    if (db.dialect === 'postgres') await db.run('ANALYZE mcp_calls');
    for (const before of cutOffs()) {
      const { sql, params } = callsBeforeSql(before, 500, db.dialect);
      if (db.dialect === 'sqlite') {
        const steps = await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params);
        const plan = steps.map((r) => r.detail).join(' | ');
        expect(plan).toMatch(/SEARCH mcp_calls USING INDEX sqlite_autoindex_mcp_calls_1 \(id>\? AND id<\?\)/);
        expect(plan).toMatch(/SEARCH mcp_calls USING (COVERING )?INDEX mcp_calls_earlier \(created_at<\?\)/);
        // The rows themselves are found by their ids (the primary key), not by a walk of the table.
        expect(plan).toMatch(
          /SEARCH mcp_calls USING (COVERING )?INDEX sqlite_autoindex_mcp_calls_1 \(id=\?\)/,
        );
        expect(plan).not.toMatch(/TEMP B-TREE/);
        expect(plan).not.toMatch(/SCAN mcp_calls(?! USING)/);
      } else {
        const [row] = await db.all<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
        const plan = JSON.stringify(row?.['QUERY PLAN']);
        expect(plan).not.toContain('Seq Scan');
        // The rows are found by their ids on the primary key, not joined to a scan of the table.
        expect(plan).toMatch(
          /"Index Name":"mcp_calls_pkey","Relation Name":"mcp_calls","Alias":"mcp_calls",[^}]*"Index Cond":"\(id = ANY \(\$0\)\)"/,
        );
        expect(plan).toMatch(/"Index Name":"mcp_calls_earlier"/);
        // Past the cut-over the recent side is a range of the primary key. (Before it, PostgreSQL
        // proves the recent side empty from the constants and may read it off either index.)
        if (before > TIME_ORDERED_SINCE)
          expect(plan).toMatch(
            /"Index Name":"mcp_calls_pkey"[^}]*"Index Cond":"\(\(id >= [^}]*id < [^}]*\)"/,
          );
      }
    }
  });

  // Last: it deletes what the tests above read.
  it('lose to the retention sweep exactly the entries from before its cut-off, a bounded batch at a time', async () => {
    const store = mcpCallsStore(db);
    let left = rows;
    for (const before of cutOffs()) {
      const gone = left.filter((r) => r.created_at < before).length;
      expect(gone).toBeGreaterThan(250);
      const deleted: number[] = [];
      for (;;) {
        deleted.push(await store.deleteBefore(before, 250, db.dialect));
        if (deleted.at(-1)! < 250) break;
      }
      // Full batches, then the rest: each DELETE bounded, and no more of them than that needs.
      expect(deleted).toEqual([...Array.from({ length: Math.floor(gone / 250) }, () => 250), gone % 250]);
      left = left.filter((r) => r.created_at >= before);
      const kept: string[] = [];
      for (let after: string | undefined; ; ) {
        const page = await store.list({}, 1_000, after);
        kept.push(...page.items.map((r) => r.id));
        if (!page.next_after) break;
        after = page.next_after;
      }
      expect(kept).toEqual(left.map((r) => r.id).reverse());
    }
  });
});
