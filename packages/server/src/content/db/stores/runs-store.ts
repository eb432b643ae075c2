import type { SqlExecutor } from '../../../platform/db/sqlite.js';
import { afterClause, toPage } from './paging.js';

export interface RunRow {
  id: string;
  agent_id: string;
  brand_id: string | null;
  parent_run_id: string | null;
  status: string;
  inputs: string;
  steps: string;
  output: string | null;
  error: string | null;
  source: string;
  key_id: string | null;
  person_id: string | null;
  automation_id: string | null;
  started_at: string;
  finished_at: string | null;
}

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
          r.inputs,
          r.steps,
          r.output,
          r.error,
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
        [r.status, r.steps, r.output, r.error, r.finished_at, id],
      );
    },
    get: (id: string) => db.get<RunRow>('SELECT * FROM agent_runs WHERE id = ?', [id]),
    children: (id: string) =>
      db.all<RunRow>('SELECT * FROM agent_runs WHERE parent_run_id = ? ORDER BY started_at, id', [id]),
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
      const rows = await db.all<RunRow>(
        `SELECT * FROM agent_runs WHERE ${where.join(' AND ')}${a.sql} ORDER BY started_at DESC, id DESC LIMIT ?`,
        [...params, ...a.params, limit + 1],
      );
      return toPage(rows, limit, (r) => [r.started_at, r.id]);
    },
  };
}
