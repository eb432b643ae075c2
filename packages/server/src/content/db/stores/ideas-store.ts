import type { SqlExecutor } from '../../../platform/db/sql.js';
import { IDEA_STATUSES, type IdeaStatus, SIGNAL_KINDS, type SignalKind } from '../../domain.js';
import { oneOf, oneOfOrNull } from './decode.js';
import { afterClause, toPage } from './paging.js';

export interface IdeaRow {
  id: string;
  brand_id: string;
  campaign_id: string | null;
  signal_id: string | null;
  title: string;
  angle: string | null;
  notes: string | null;
  status: IdeaStatus;
  created_at: string;
  updated_at: string;
}
export interface IdeaWithSignal extends IdeaRow {
  signal_kind: SignalKind | null;
  signal_title: string | null;
}

const decode = (r: IdeaWithSignal): IdeaWithSignal => ({
  ...r,
  status: oneOf(IDEA_STATUSES, 'ideas', 'status', r.status),
  signal_kind: oneOfOrNull(SIGNAL_KINDS, 'signals', 'kind', r.signal_kind),
});

const SELECT = `SELECT i.*, s.kind AS signal_kind, s.title AS signal_title
  FROM ideas i LEFT JOIN signals s ON s.id = i.signal_id`;

export function ideasStore(db: SqlExecutor) {
  return {
    /** The signal each idea came from, by idea id (ideas with no signal are left out). */
    signalsOf: (ids: string[]) => signalsOfIdeas(db, ids),
    async insert(r: IdeaRow) {
      await db.run(
        `INSERT INTO ideas (id, brand_id, campaign_id, signal_id, title, angle, notes, status, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          r.id,
          r.brand_id,
          r.campaign_id,
          r.signal_id,
          r.title,
          r.angle,
          r.notes,
          r.status,
          r.created_at,
          r.updated_at,
        ],
      );
    },
    async get(id: string) {
      const row = await db.get<IdeaWithSignal>(`${SELECT} WHERE i.id = ?`, [id]);
      return row && decode(row);
    },
    async list(
      filter: { brandId?: string; status?: IdeaStatus; campaignId?: string },
      limit: number,
      after?: string,
    ) {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (filter.brandId) where.push('i.brand_id = ?') && params.push(filter.brandId);
      if (filter.status) where.push('i.status = ?') && params.push(filter.status);
      if (filter.campaignId) where.push('i.campaign_id = ?') && params.push(filter.campaignId);
      const a = afterClause(['i.updated_at', 'i.id'], after);
      const rows = await db.all<IdeaWithSignal>(
        `${SELECT} WHERE 1 = 1${where.map((w) => ` AND ${w}`).join('')}${a.sql}
         ORDER BY i.updated_at DESC, i.id DESC LIMIT ?`,
        [...params, ...a.params, limit + 1],
      );
      return toPage(rows.map(decode), limit, (r) => [r.updated_at, r.id]);
    },
    titlesOf: async (brandId: string) =>
      (await db.all<{ title: string }>('SELECT title FROM ideas WHERE brand_id = ?', [brandId])).map(
        (r) => r.title,
      ),
    async update(id: string, r: Omit<IdeaRow, 'id' | 'brand_id' | 'signal_id' | 'created_at'>) {
      await db.run(
        'UPDATE ideas SET campaign_id = ?, title = ?, angle = ?, notes = ?, status = ?, updated_at = ? WHERE id = ?',
        [r.campaign_id, r.title, r.angle, r.notes, r.status, r.updated_at, id],
      );
    },
    /** With `from`, moves the idea only if it is still there (false, nothing written, otherwise). */
    async setStatus(id: string, status: IdeaStatus, at: string, from?: IdeaStatus): Promise<boolean> {
      const r = await db.run(
        `UPDATE ideas SET status = ?, updated_at = ? WHERE id = ?${from === undefined ? '' : ' AND status = ?'}`,
        [status, at, id, ...(from === undefined ? [] : [from])],
      );
      return r.changes > 0;
    },
    async remove(id: string) {
      return (await db.run('DELETE FROM ideas WHERE id = ?', [id])).changes > 0;
    },
  };
}

export async function signalsOfIdeas(db: SqlExecutor, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.all<{ id: string; signal_id: string }>(
    `SELECT id, signal_id FROM ideas WHERE signal_id IS NOT NULL AND id IN (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, r.signal_id]));
}
