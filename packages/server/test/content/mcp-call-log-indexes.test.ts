import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import {
  type McpCallRow,
  type McpCallsFilter,
  mcpCallsPageSql,
  mcpCallsStore,
} from '../../src/content/db/stores/misc-stores.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import {
  createTestPostgresDatabase,
  TEST_POOL_SIZE,
  type TestPostgresDatabase,
  testEngine,
} from '../helpers/database.js';

/**
 * Migration 023 makes the call log's two indexes ascending, so a batch of entries (oldest first)
 * lands at the right edge of each, where both engines append (issue 20). What must not change:
 * `GET /v1/mcp-calls` is read off an index on both engines, newest first, with the same ids and
 * cursors, on a database that held entries before the migration.
 */
describe('the MCP call log indexes (migration 023)', () => {
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
    // Entries written before the migration, in the batches the log writes (oldest first).
    const before = await open(22);
    const start = Date.parse('2026-11-01T00:00:00.000Z');
    for (let i = 0; i < 3_000; i++)
      rows.push({
        // Two entries a millisecond: the id breaks the tie.
        id: `mcpc_${String(i).padStart(24, '0')}`,
        key_id: i % 7 === 0 ? null : `key_${i % 3}`,
        tool: i % 2 ? 'list_agents' : 'list_brands',
        args: { n: i },
        outcome: 'ok',
        error_code: null,
        error_message: null,
        duration_ms: 1,
        created_at: new Date(start + Math.floor(i / 2)).toISOString(),
      });
    for (let i = 0; i < rows.length; i += 200)
      await mcpCallsStore(before).insertMany(
        rows.slice(i, i + 200).map((r) => ({ ...r, args: JSON.stringify(r.args) })),
      );
    await before.close();
    db = await open(23);
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await pgDatabase?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are ascending on both columns after the migration', async () => {
    if (db.dialect === 'sqlite') {
      for (const index of ['mcp_calls_created', 'mcp_calls_key']) {
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
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'mcp_calls' AND indexname IN ('mcp_calls_created', 'mcp_calls_key') ORDER BY indexname",
      );
      expect(defs.map((d) => d.indexdef.replace(/^.* USING btree /, ''))).toEqual([
        '(created_at, id)',
        '(key_id, created_at, id)',
      ]);
    }
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

  it('are what the list reads, newest first, with no sort of the rows', async () => {
    const cursor = Buffer.from(JSON.stringify(['2026-11-01T00:00:00.700Z', rows[1400]?.id])).toString(
      'base64url',
    );
    if (db.dialect === 'postgres') await db.run('ANALYZE mcp_calls');
    for (const filter of filters)
      for (const after of [undefined, cursor]) {
        const { sql, params } = mcpCallsPageSql(filter, 50, after);
        if (db.dialect === 'sqlite') {
          const plan = (await db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params))
            .map((r) => r.detail)
            .join(' | ');
          expect(plan).toMatch(filter.keyId ? /USING INDEX mcp_calls_key/ : /USING INDEX mcp_calls_created/);
          expect(plan).not.toMatch(/TEMP B-TREE/);
        } else {
          const [row] = await db.all<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params);
          const plan = JSON.stringify(row?.['QUERY PLAN']);
          expect(plan).not.toContain('Seq Scan');
          // Either index, read backwards, may serve a key's page: PostgreSQL picks by its statistics.
          expect(plan).toMatch(/"Index Name":"mcp_calls_(created|key)"/);
          expect(plan).not.toMatch(/"Node Type":"(Sort|Incremental Sort)"/);
        }
      }
  });
});
