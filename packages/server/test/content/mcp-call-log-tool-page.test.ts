import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The built client, as a user installs it (the server does not depend on the client package; the
// relay tests run its built bin the same way): its auto-pagination must go on through empty pages.
import { ContentClient } from '../../../content-client/dist/index.js';
import type { ContentContext } from '../../src/content/context.js';
import { MAX_CALLS_EXAMINED, mcpCallsPageSql } from '../../src/content/db/stores/misc-stores.js';
import { callRow, countedId, writeCalls } from '../helpers/call-log-rows.js';
import { api, startTestService, type TestService } from '../helpers/start.js';

/**
 * `GET /v1/mcp-calls?tool=…` on a log full of another tool's calls. No index leads with `tool`, so
 * the old page walked the whole log in one statement to find a rare tool's entries (on SQLite,
 * holding the event loop for all of it). Now a page looks at MAX_CALLS_EXAMINED entries at most and
 * ends short with a cursor; following the cursors still reaches every entry.
 */
describe('the call log filtered by tool looks at a bounded number of entries', () => {
  let svc: TestService;
  let db: ContentContext['db'];
  // The rare tool's one entry is the oldest; the other tool's entries fill more than two walks.
  const others = 2 * MAX_CALLS_EXAMINED + 500;
  const start = Date.parse('2026-11-01T00:00:00.000Z');
  const entry = (i: number, tool: string) => callRow({ id: countedId(i), at: start + i, tool });

  beforeAll(async () => {
    svc = await startTestService('content', { config: { seed: 'none' } });
    db = (svc.handle as unknown as { ctx: ContentContext }).ctx.db;
    const rows = [entry(0, 'get_digest')];
    for (let i = 1; i <= others; i++) rows.push(entry(i, 'list_agents'));
    await writeCalls(db, rows);
  }, 60_000);
  afterAll(() => svc?.close());

  it('answers the first page short, with a cursor, instead of walking the whole log', async () => {
    const first = await api(svc.url, 'GET', '/v1/mcp-calls?tool=get_digest&limit=10');
    expect(first.status).toBe(200);
    // The old code walked all the entries and answered the rare one here, with no cursor.
    expect(first.body.mcp_calls).toEqual([]);
    expect(first.body.has_more).toBe(true);
    expect(typeof first.body.next_after).toBe('string');
  });

  it('reaches the rare entry by following the cursors, one walk per page', async () => {
    const found: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const q: string = after ? `&after=${after}` : '';
      const page = await api(svc.url, 'GET', `/v1/mcp-calls?tool=get_digest&limit=10${q}`);
      expect(page.status).toBe(200);
      found.push(...page.body.mcp_calls.map((c: { id: string }) => c.id));
      after = page.body.next_after;
      pages++;
    } while (after);
    expect(found).toEqual([entry(0, 'get_digest').id]);
    // Every walk but the last looks at MAX_CALLS_EXAMINED entries.
    expect(pages).toBe(Math.ceil((others + 1) / MAX_CALLS_EXAMINED));
  });

  it("@svc/content-client's auto-pagination goes on through the empty pages to the rare entry", async () => {
    const client = new ContentClient({ baseUrl: svc.url });
    const first = await client.mcpCalls.list({ tool: 'get_digest', limit: 10 });
    expect(first).toMatchObject({ mcp_calls: [], has_more: true });
    const found: string[] = [];
    for await (const call of client.mcpCalls.list({ tool: 'get_digest', limit: 10 })) found.push(call.id);
    expect(found).toEqual([entry(0, 'get_digest').id]);
  });

  it('a full page of the common tool still answers at once, in order', async () => {
    const page = await api(svc.url, 'GET', '/v1/mcp-calls?tool=list_agents&limit=5');
    expect(page.body.mcp_calls.map((c: { id: string }) => c.id)).toEqual(
      [0, 1, 2, 3, 4].map((k) => entry(others - k, 'list_agents').id),
    );
    expect(page.body.has_more).toBe(true);
  });

  /**
   * Rows the tool's page statement reads off the table. SQLite: on a second connection, a TEMP
   * view named mcp_calls (temp names come before main's) counts each row the statement pulls
   * through it; the view is flattened into the statement, so the plan is the server's. PostgreSQL:
   * the rows each scan node of EXPLAIN ANALYZE read (passed on or filtered out).
   */
  async function rowsExamined(): Promise<number[]> {
    const { sql, params } = mcpCallsPageSql({ tool: 'get_digest' }, 10);
    if (db.dialect === 'sqlite') {
      const conn = new Database(join(svc.dataDir, 'content.sqlite'), { readonly: true });
      try {
        let examined = 0;
        conn.function('examined', () => {
          examined++;
          return 1;
        });
        conn.exec('CREATE TEMP VIEW mcp_calls AS SELECT * FROM main.mcp_calls WHERE examined()');
        conn.prepare(sql).all(...params);
        return [examined];
      } finally {
        conn.close();
      }
    }
    await db.run('ANALYZE mcp_calls');
    const [row] = await db.all<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
    const scanned: number[] = [];
    const walk = (node: Record<string, unknown>) => {
      if (String(node['Node Type']).includes('Scan') && node['Relation Name'] === 'mcp_calls')
        // What the scan read: the rows it passed on and those its filter dropped.
        scanned.push(Number(node['Actual Rows']) + Number(node['Rows Removed by Filter'] ?? 0));
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    const plans = (row?.['QUERY PLAN'] ?? []) as { Plan: Record<string, unknown> }[];
    walk(plans[0]?.Plan ?? {});
    return scanned;
  }

  it('reads at most MAX_CALLS_EXAMINED rows for one page (a scan counter, both engines)', async () => {
    const scanned = await rowsExamined();
    expect(scanned.length).toBeGreaterThan(0);
    // The old statement read every entry down to the rare one: others + 1.
    for (const n of scanned) expect(n).toBeLessThanOrEqual(MAX_CALLS_EXAMINED);
  });
});
