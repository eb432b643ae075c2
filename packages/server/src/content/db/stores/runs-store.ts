import type { SqlExecutor } from '../../../platform/db/sql.js';
import {
  AGENT_IDS,
  type AgentId,
  CALLER_SOURCES,
  type CallerSource,
  RUN_STATUSES,
  type RunStatus,
} from '../../domain.js';
import type { AgentRunView, RunStepView } from '../../schemas/agents.js';
import { decodeJson, decodeJsonOrNull, oneOf, toJsonColumn } from './decode.js';
import { afterClause, toPage } from './paging.js';

export interface RunRow {
  id: string;
  agent_id: AgentId;
  brand_id: string | null;
  parent_run_id: string | null;
  status: RunStatus;
  inputs: Record<string, unknown>;
  steps: RunStepView[];
  output: Record<string, unknown> | null;
  error: AgentRunView['error'];
  source: CallerSource;
  key_id: string | null;
  person_id: string | null;
  automation_id: string | null;
  started_at: string;
  finished_at: string | null;
}

type Row = Record<string, unknown>;

/** Steps recorded before token usage was counted have none: null, as for a step without model calls. */
const decode = (r: Row): RunRow =>
  ({
    ...r,
    agent_id: oneOf(AGENT_IDS, 'agent_runs', 'agent_id', r.agent_id),
    status: oneOf(RUN_STATUSES, 'agent_runs', 'status', r.status),
    source: oneOf(CALLER_SOURCES, 'agent_runs', 'source', r.source),
    inputs: decodeJson('object', 'agent_runs', 'inputs', r.inputs),
    steps: decodeJson<Partial<RunStepView>[]>('array', 'agent_runs', 'steps', r.steps).map((s) => ({
      ...s,
      usage: s.usage ?? null,
    })),
    output: decodeJsonOrNull('object', 'agent_runs', 'output', r.output),
    error: decodeJsonOrNull('object', 'agent_runs', 'error', r.error),
  }) as RunRow;

export function runsStore(db: SqlExecutor) {
  return {
    async insert(r: RunRow) {
      await db.run(
        `INSERT INTO agent_runs (id, agent_id, brand_id, parent_run_id, status, inputs, steps, output, error, source, key_id, person_id, automation_id, started_at, finished_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          r.id,
          r.agent_id,
          r.brand_id,
          r.parent_run_id,
          r.status,
          JSON.stringify(r.inputs),
          JSON.stringify(r.steps),
          toJsonColumn(r.output),
          toJsonColumn(r.error),
          r.source,
          r.key_id,
          r.person_id,
          r.automation_id,
          r.started_at,
          r.finished_at,
        ],
      );
    },
    async finish(id: string, r: Pick<RunRow, 'status' | 'steps' | 'output' | 'error' | 'finished_at'>) {
      await db.run(
        'UPDATE agent_runs SET status = ?, steps = ?, output = ?, error = ?, finished_at = ? WHERE id = ?',
        [r.status, JSON.stringify(r.steps), toJsonColumn(r.output), toJsonColumn(r.error), r.finished_at, id],
      );
    },
    async get(id: string) {
      const row = await db.get<Row>('SELECT * FROM agent_runs WHERE id = ?', [id]);
      return row && decode(row);
    },
    children: async (id: string) =>
      (
        await db.all<Row>('SELECT * FROM agent_runs WHERE parent_run_id = ? ORDER BY started_at, id', [id])
      ).map(decode),
    async list(filter: { agentId?: string; brandId?: string }, limit: number, after?: string) {
      const where: string[] = ['parent_run_id IS NULL'];
      const params: string[] = [];
      if (filter.agentId) {
        where.push('agent_id = ?');
        params.push(filter.agentId);
      }
      if (filter.brandId) {
        where.push('brand_id = ?');
        params.push(filter.brandId);
      }
      const a = afterClause(['started_at', 'id'], after);
      const rows = (
        await db.all<Row>(
          `SELECT * FROM agent_runs WHERE ${where.join(' AND ')}${a.sql} ORDER BY started_at DESC, id DESC LIMIT ?`,
          [...params, ...a.params, limit + 1],
        )
      ).map(decode);
      return toPage(rows, limit, (r) => [r.started_at, r.id]);
    },
  };
}
