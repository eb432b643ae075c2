import type { SqlExecutor } from '../../../platform/db/sql.js';
import { afterClause, toPage } from './paging.js';

export interface CampaignRow {
  id: string;
  brand_id: string;
  name: string;
  goal: string | null;
  starts_on: string | null;
  ends_on: string | null;
  created_at: string;
  updated_at: string;
}
export interface CanvasItemRow {
  id: string;
  campaign_id: string;
  kind: string;
  ref_id: string | null;
  text: string;
  color: string;
  x: number;
  y: number;
  w: number;
  h: number;
  created_at: string;
  updated_at: string;
}

export function campaignsStore(db: SqlExecutor) {
  return {
    async insert(r: CampaignRow) {
      await db.run(
        'INSERT INTO campaigns (id, brand_id, name, goal, starts_on, ends_on, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        [r.id, r.brand_id, r.name, r.goal, r.starts_on, r.ends_on, r.created_at, r.updated_at],
      );
    },
    get: (id: string) => db.get<CampaignRow>('SELECT * FROM campaigns WHERE id = ?', [id]),
    async list(filter: { brandId?: string }, limit: number, after?: string) {
      const a = afterClause(['created_at', 'id'], after);
      const rows = await db.all<CampaignRow>(
        `SELECT * FROM campaigns WHERE 1 = 1${filter.brandId ? ' AND brand_id = ?' : ''}${a.sql}
         ORDER BY created_at DESC, id DESC LIMIT ?`,
        [...(filter.brandId ? [filter.brandId] : []), ...a.params, limit + 1],
      );
      return toPage(rows, limit, (r) => [r.created_at, r.id]);
    },
    async update(id: string, r: Omit<CampaignRow, 'id' | 'brand_id' | 'created_at'>) {
      await db.run(
        'UPDATE campaigns SET name = ?, goal = ?, starts_on = ?, ends_on = ?, updated_at = ? WHERE id = ?',
        [r.name, r.goal, r.starts_on, r.ends_on, r.updated_at, id],
      );
    },
    async remove(id: string) {
      return (await db.run('DELETE FROM campaigns WHERE id = ?', [id])).changes > 0;
    },
    items: (campaignId: string) =>
      db.all<CanvasItemRow>('SELECT * FROM canvas_items WHERE campaign_id = ? ORDER BY created_at, id', [
        campaignId,
      ]),
    /** The right edge of everything on the canvas and the top of the item that reaches it. */
    rightEdge: (campaignId: string) =>
      db.get<{ right: number; y: number }>(
        'SELECT x + w AS right, y FROM canvas_items WHERE campaign_id = ? ORDER BY x + w DESC, y LIMIT 1',
        [campaignId],
      ),
    async addItem(r: CanvasItemRow) {
      await db.run(
        `INSERT INTO canvas_items (id, campaign_id, kind, ref_id, text, color, x, y, w, h, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          r.id,
          r.campaign_id,
          r.kind,
          r.ref_id,
          r.text,
          r.color,
          r.x,
          r.y,
          r.w,
          r.h,
          r.created_at,
          r.updated_at,
        ],
      );
    },
    item: (campaignId: string, id: string) =>
      db.get<CanvasItemRow>('SELECT * FROM canvas_items WHERE campaign_id = ? AND id = ?', [campaignId, id]),
    async updateItem(
      id: string,
      r: Pick<CanvasItemRow, 'text' | 'color' | 'x' | 'y' | 'w' | 'h' | 'updated_at'>,
    ) {
      await db.run(
        'UPDATE canvas_items SET text = ?, color = ?, x = ?, y = ?, w = ?, h = ?, updated_at = ? WHERE id = ?',
        [r.text, r.color, r.x, r.y, r.w, r.h, r.updated_at, id],
      );
    },
    async removeItem(id: string) {
      return (await db.run('DELETE FROM canvas_items WHERE id = ?', [id])).changes > 0;
    },
  };
}
