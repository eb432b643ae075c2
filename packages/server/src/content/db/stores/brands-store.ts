import type { SqlExecutor } from '../../../platform/db/sqlite.js';
import { afterClause, toPage } from './paging.js';

export interface BrandRow {
  id: string;
  name: string;
  time_zone: string;
  memory: string;
  created_at: string;
  updated_at: string;
}

export function brandsStore(db: SqlExecutor) {
  return {
    async insert(row: BrandRow) {
      await db.run(
        'INSERT INTO brands (id, name, time_zone, memory, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        [row.id, row.name, row.time_zone, row.memory, row.created_at, row.updated_at],
      );
    },
    get: (id: string) => db.get<BrandRow>('SELECT * FROM brands WHERE id = ?', [id]),
    async exists(id: string) {
      return (await db.get('SELECT 1 FROM brands WHERE id = ?', [id])) !== undefined;
    },
    async list(limit: number, after?: string) {
      const a = afterClause(['created_at', 'id'], after);
      const rows = await db.all<BrandRow>(
        `SELECT * FROM brands WHERE 1 = 1${a.sql} ORDER BY created_at DESC, id DESC LIMIT ?`,
        [...a.params, limit + 1],
      );
      return toPage(rows, limit, (r) => [r.created_at, r.id]);
    },
    all: () => db.all<BrandRow>('SELECT * FROM brands ORDER BY created_at, id'),
    /**
     * With `readMemory` (the memory JSON the change was computed from), writes only if the memory
     * is still exactly that: a read-modify-write of Brand Memory cannot overwrite another one that
     * landed in between. False when it had changed (or the brand is gone); nothing was written.
     */
    async update(
      id: string,
      patch: { name?: string | undefined; time_zone?: string | undefined; memory?: string | undefined },
      at: string,
      readMemory?: string,
    ) {
      const r = await db.run(
        `UPDATE brands SET name = COALESCE(?, name), time_zone = COALESCE(?, time_zone),
            memory = COALESCE(?, memory), updated_at = ?
          WHERE id = ?${readMemory === undefined ? '' : ' AND memory = ?'}`,
        [
          patch.name ?? null,
          patch.time_zone ?? null,
          patch.memory ?? null,
          at,
          id,
          ...(readMemory === undefined ? [] : [readMemory]),
        ],
      );
      return r.changes > 0;
    },
    async remove(id: string) {
      return (await db.run('DELETE FROM brands WHERE id = ?', [id])).changes > 0;
    },
  };
}
