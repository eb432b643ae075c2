import { toFlag } from '../../../platform/db/flags.js';
import type { Dialect, SqlExecutor, SqlValue } from '../../../platform/db/sql.js';
import { PROPOSAL_STATUSES, type ProposalStatus } from '../../domain.js';
import type { DigestView } from '../../schemas/insights.js';
import type { MemoryProposalView } from '../../schemas/workspace.js';
import { idSortsByTime } from '../migrations/025-call-log-marked-by-id.js';
import { decodeJson, oneOf } from './decode.js';
import { callsBeforeSql, callsWalk, type McpCallsFilter, NEWEST_FIRST } from './mcp-calls-walk.js';
import { afterClause, encodeCursor, placeholders, toPage } from './paging.js';

/** What a digest row keeps of the digest: everything but its id, run and time (their own columns). */
export type DigestBody = Omit<DigestView, 'id' | 'run_id' | 'created_at'>;

export interface DigestRow {
  id: string;
  brand_id: string;
  run_id: string | null;
  period_start: string;
  period_end: string;
  body: DigestBody;
  created_at: string;
}

export function digestsStore(db: SqlExecutor) {
  return {
    async insert(r: DigestRow) {
      await db.run(
        'INSERT INTO digests (id, brand_id, run_id, period_start, period_end, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [r.id, r.brand_id, r.run_id, r.period_start, r.period_end, JSON.stringify(r.body), r.created_at],
      );
    },
    // seq breaks ties within the same millisecond: ids are random, insertion order is not.
    async latest(brandId: string) {
      const row = await db.get<DigestRow>(
        'SELECT * FROM digests WHERE brand_id = ? ORDER BY created_at DESC, seq DESC LIMIT 1',
        [brandId],
      );
      return row && { ...row, body: decodeJson<DigestBody>('object', 'digests', 'body', row.body) };
    },
  };
}

export interface ProposalRow {
  id: string;
  brand_id: string;
  run_id: string | null;
  change: MemoryProposalView['change'];
  why: string;
  lift: number;
  evidence: MemoryProposalView['evidence'];
  status: ProposalStatus;
  pending_rank: number;
  decided_at: string | null;
  created_at: string;
}

const decodeProposal = (r: ProposalRow): ProposalRow => ({
  ...r,
  change: decodeJson('object', 'memory_proposals', 'change', r.change),
  evidence: decodeJson('array', 'memory_proposals', 'evidence', r.evidence),
  status: oneOf(PROPOSAL_STATUSES, 'memory_proposals', 'status', r.status),
});

export function proposalsStore(db: SqlExecutor) {
  return {
    async insert(r: ProposalRow) {
      await db.run(
        `INSERT INTO memory_proposals (id, brand_id, run_id, change, why, lift, evidence, status, pending_rank, decided_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          r.id,
          r.brand_id,
          r.run_id,
          JSON.stringify(r.change),
          r.why,
          r.lift,
          JSON.stringify(r.evidence),
          r.status,
          r.pending_rank,
          r.decided_at,
          r.created_at,
        ],
      );
    },
    async get(id: string) {
      const row = await db.get<ProposalRow>('SELECT * FROM memory_proposals WHERE id = ?', [id]);
      return row && decodeProposal(row);
    },
    pendingOf: async (brandId: string) =>
      (
        await db.all<ProposalRow>(
          "SELECT * FROM memory_proposals WHERE brand_id = ? AND status = 'pending'",
          [brandId],
        )
      ).map(decodeProposal),
    async list(filter: { brandId?: string; status?: ProposalStatus }, limit: number, after?: string) {
      const where: string[] = [];
      const params: string[] = [];
      if (filter.brandId) {
        where.push('brand_id = ?');
        params.push(filter.brandId);
      }
      if (filter.status) {
        where.push('status = ?');
        params.push(filter.status);
      }
      const a = afterClause([{ integer: 'pending_rank' }, 'created_at', 'id'], after);
      const rows = (
        await db.all<ProposalRow>(
          `SELECT * FROM memory_proposals WHERE 1 = 1${where.map((w) => ` AND ${w}`).join('')}${a.sql}
         ORDER BY pending_rank DESC, created_at DESC, id DESC LIMIT ?`,
          [...params, ...a.params, limit + 1],
        )
      ).map(decodeProposal);
      return toPage(rows, limit, (r) => [r.pending_rank, r.created_at, r.id]);
    },
    async counts(brandId?: string) {
      const rows = await db.all<{ status: string; n: number }>(
        `SELECT status, COUNT(*) AS n FROM memory_proposals${brandId ? ' WHERE brand_id = ?' : ''} GROUP BY status`,
        brandId ? [brandId] : [],
      );
      const out = { pending: 0, applied: 0, dismissed: 0 };
      for (const r of rows) if (r.status in out) out[r.status as keyof typeof out] = Number(r.n);
      return out;
    },
    async decide(id: string, status: ProposalStatus, at: string) {
      return (
        await db.run(
          "UPDATE memory_proposals SET status = ?, pending_rank = 0, decided_at = ? WHERE id = ? AND status = 'pending'",
          [status, at, id],
        )
      ).changes;
    },
    byRun: async (runId: string) =>
      (
        await db.all<ProposalRow>('SELECT * FROM memory_proposals WHERE run_id = ? ORDER BY created_at, id', [
          runId,
        ])
      ).map(decodeProposal),
  };
}

export interface McpCallRow {
  id: string;
  key_id: string | null;
  tool: string;
  args: Record<string, unknown>;
  outcome: 'ok' | 'error';
  error_code: string | null;
  error_message: string | null;
  duration_ms: number | null;
  created_at: string;
}

/** An entry on its way in: its arguments already redacted, bounded and serialised (services/mcp-calls.ts). */
export type NewMcpCall = Omit<McpCallRow, 'args'> & { args: string };

const MCP_OUTCOMES = ['ok', 'error'] as const;
const CALL_COLUMNS = 'id, key_id, tool, args, outcome, error_code, error_message, duration_ms, created_at';

/**
 * The INSERT for `n` entries, made once per batch size: a full batch's text is 200 groups of
 * placeholders, rebuilt on every flush before: 1.6 of the batch write's 2.1 % of samples in the PostgreSQL profile.
 * Batches hold at most MAX_BATCH entries (services/mcp-call-log.ts), so this holds at most as many texts.
 */
const callsSql = new Map<number, string>();
const insertCallsSql = (n: number) => {
  let sql = callsSql.get(n);
  if (!sql) {
    sql = `INSERT INTO mcp_calls (id, key_id, tool, args, outcome, error_code, error_message, duration_ms, created_at, id_sorts_by_time)
         VALUES ${Array.from({ length: n }, () => `(${placeholders(10)})`).join(', ')}`;
    callsSql.set(n, sql);
  }
  return sql;
};

/**
 * The most entries one page of `GET /v1/mcp-calls?tool=…` looks at. No index leads with `tool`, so
 * a tool's page walks the log newest first (stores/mcp-calls-walk.ts) and skips the other tools'
 * entries (two index reads of at most this many each, merged and cut to it). The log keeps
 * SERVICE_MCP_LOG_RETENTION_DAYS of calls, or every call (docs/content/mcp.md, "Retention"),
 * so without a bound a rare tool's page read the whole log in one statement: on SQLite that holds
 * the event loop, every other request with it, for as long as the log is long. Past the bound the
 * page ends short (even empty), `has_more` true and `next_after` just past the last entry looked
 * at, so following the cursors still reaches every entry. An index on `tool` would cost every
 * call's batch write a third index (issue 20), for a filter a person uses now and then.
 */
export const MAX_CALLS_EXAMINED = 2_000;

/**
 * One page of `GET /v1/mcp-calls`, newest first, read off indexes only (callsWalk);
 * test/content/mcp-call-log-indexes.test.ts checks the plans. A tool's page looks at no more than
 * MAX_CALLS_EXAMINED entries (the walk's bound, read once into `examined`) and answers two kinds
 * of row: `edge` 0, the tool's entries; `edge` 1, the last entry examined when the walk took all
 * MAX_CALLS_EXAMINED (a short page goes on from there). One statement, so both come from one
 * snapshot on both engines: read apart, a batch landing inside the examined window between the
 * two reads moved the edge newer than the hits, and the next page repeated some
 * (test/content/mcp-call-log-tool-snapshot.test.ts).
 */
export function mcpCallsPageSql(filter: McpCallsFilter, limit: number, after?: string) {
  if (!filter.tool) return callsWalk(filter, after, limit + 1);
  const walk = callsWalk(filter, after, MAX_CALLS_EXAMINED, CALL_COLUMNS);
  return {
    sql: `WITH examined AS MATERIALIZED (${walk.sql})
          SELECT * FROM (SELECT ${CALL_COLUMNS}, 0 AS edge FROM examined WHERE tool = ? ${NEWEST_FIRST} LIMIT ?) AS hits
          UNION ALL
          SELECT * FROM (SELECT ${CALL_COLUMNS}, 1 AS edge FROM examined ${NEWEST_FIRST} LIMIT 1 OFFSET ?) AS last_examined`,
    params: [...walk.params, filter.tool, limit + 1, MAX_CALLS_EXAMINED - 1],
  };
}

export type { McpCallsFilter };

export function mcpCallsStore(db: SqlExecutor) {
  return {
    /**
     * Several entries in one statement: the call log's batches (services/mcp-call-log.ts). Each says
     * whether its id sorts as its time, from the id and time themselves (migration 025), so an
     * entry is read by id only when that is true, whoever made its id.
     */
    async insertMany(rows: NewMcpCall[]) {
      if (rows.length === 0) return;
      const params: SqlValue[] = [];
      for (const r of rows)
        params.push(
          r.id,
          r.key_id,
          r.tool,
          r.args,
          r.outcome,
          r.error_code,
          r.error_message,
          r.duration_ms,
          r.created_at,
          toFlag(idSortsByTime(r.id, r.created_at)),
        );
      await db.run(insertCallsSql(rows.length), params);
    },
    /** Deletes at most `n` entries from before `before` (ISO time): the number deleted (callsBeforeSql). */
    async deleteBefore(before: string, n: number, dialect: Dialect): Promise<number> {
      const query = callsBeforeSql(before, n, dialect);
      return (await db.run(query.sql, query.params)).changes;
    },
    async list(filter: McpCallsFilter, limit: number, after?: string) {
      const query = mcpCallsPageSql(filter, limit, after);
      const rows = await db.all<McpCallRow & { edge?: number }>(query.sql, query.params);
      const edge = rows.find((r) => Number(r.edge) === 1);
      const hits = rows
        .filter((r) => Number(r.edge ?? 0) === 0)
        .map(({ edge: _, ...r }) => ({
          ...r,
          args: decodeJson<Record<string, unknown>>('object', 'mcp_calls', 'args', r.args),
          outcome: oneOf(MCP_OUTCOMES, 'mcp_calls', 'outcome', r.outcome),
        }));
      const page = toPage(hits, limit, (r) => [r.created_at, r.id]);
      // Fewer of a tool's entries than asked: either the log ends inside the walk, or the walk hit
      // its bound and the page goes on from the last entry it looked at.
      if (page.has_more || !edge) return page;
      return { ...page, has_more: true, next_after: encodeCursor([edge.created_at, edge.id]) };
    },
  };
}

export function metaStore(db: SqlExecutor) {
  return {
    get: async (key: string) =>
      (await db.get<{ value: string }>('SELECT value FROM workspace_meta WHERE key = ?', [key]))?.value ??
      null,
    async set(key: string, value: string) {
      await db.run(
        'INSERT INTO workspace_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
        [key, value],
      );
    },
    async delete(key: string) {
      await db.run('DELETE FROM workspace_meta WHERE key = ?', [key]);
    },
  };
}
