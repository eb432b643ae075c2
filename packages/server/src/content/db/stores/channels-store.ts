import type { SqlExecutor } from '../../../platform/db/sqlite.js';
import { afterClause, placeholders, toPage } from './paging.js';

export interface ChannelRow {
  id: string;
  brand_id: string;
  platform: string;
  handle: string;
  display_name: string;
  kind: string;
  status: string;
  connected_at: string | null;
  created_at: string;
}

export function channelsStore(db: SqlExecutor) {
  return {
    async insert(r: ChannelRow) {
      await db.run(
        `INSERT INTO channels (id, brand_id, platform, handle, display_name, kind, status, connected_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          r.id,
          r.brand_id,
          r.platform,
          r.handle,
          r.display_name,
          r.kind,
          r.status,
          r.connected_at,
          r.created_at,
        ],
      );
    },
    get: (id: string) => db.get<ChannelRow>('SELECT * FROM channels WHERE id = ?', [id]),
    connectedFor: (brandId: string, platform: string) =>
      db.get<ChannelRow>(
        "SELECT * FROM channels WHERE brand_id = ? AND platform = ? AND status = 'connected'",
        [brandId, platform],
      ),
    connectedOf: (brandId: string) =>
      db.all<ChannelRow>(
        "SELECT * FROM channels WHERE brand_id = ? AND status = 'connected' ORDER BY created_at, id",
        [brandId],
      ),
    connectedOfMany(brandIds: string[]) {
      if (brandIds.length === 0) return Promise.resolve([] as ChannelRow[]);
      return db.all<ChannelRow>(
        `SELECT * FROM channels WHERE status = 'connected' AND brand_id IN (${placeholders(brandIds.length)}) ORDER BY created_at, id`,
        brandIds,
      );
    },
    async list(filter: { brandId?: string }, limit: number, after?: string) {
      const a = afterClause(['created_at', 'id'], after);
      const where = filter.brandId ? ' AND brand_id = ?' : '';
      const rows = await db.all<ChannelRow>(
        `SELECT * FROM channels WHERE 1 = 1${where}${a.sql} ORDER BY created_at DESC, id DESC LIMIT ?`,
        [...(filter.brandId ? [filter.brandId] : []), ...a.params, limit + 1],
      );
      return toPage(rows, limit, (r) => [r.created_at, r.id]);
    },
    async disconnect(id: string) {
      await db.run("UPDATE channels SET status = 'disconnected' WHERE id = ?", [id]);
    },
  };
}
