import type { SqlExecutor } from '../../../platform/db/sql.js';
import type { BrandMemory } from '../../schemas/brands.js';
import { decodeJson } from './decode.js';
import { afterClause, toPage } from './paging.js';

export interface BrandRow {
  id: string;
  name: string;
  time_zone: string;
  memory: BrandMemory;
  created_at: string;
  updated_at: string;
}

/**
 * A brand as read. `memory_as_read` is the memory column's text exactly as read: what `update`
 * compares against, so a change computed from this read never overwrites a newer one. Never shown.
 */
export interface BrandRecord extends BrandRow {
  memory_as_read: string;
}

const decode = (r: Omit<BrandRow, 'memory'> & { memory: unknown }): BrandRecord => ({
  ...r,
  memory: decodeJson<BrandMemory>('object', 'brands', 'memory', r.memory),
  memory_as_read: typeof r.memory === 'string' ? r.memory : JSON.stringify(r.memory),
});
type Row = Omit<BrandRow, 'memory'> & { memory: unknown };

export function brandsStore(db: SqlExecutor) {
  return {
    /** `memoryJson`: the memory as written, already checked against its size limits. */
    async insert(row: Omit<BrandRow, 'memory'>, memoryJson: string) {
      await db.run(
        'INSERT INTO brands (id, name, time_zone, memory, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        [row.id, row.name, row.time_zone, memoryJson, row.created_at, row.updated_at],
      );
    },
    async get(id: string) {
      const row = await db.get<Row>('SELECT * FROM brands WHERE id = ?', [id]);
      return row && decode(row);
    },
    async exists(id: string) {
      return (await db.get('SELECT 1 FROM brands WHERE id = ?', [id])) !== undefined;
    },
    async list(limit: number, after?: string) {
      const a = afterClause(['created_at', 'id'], after);
      const rows = (
        await db.all<Row>(
          `SELECT * FROM brands WHERE 1 = 1${a.sql} ORDER BY created_at DESC, id DESC LIMIT ?`,
          [...a.params, limit + 1],
        )
      ).map(decode);
      return toPage(rows, limit, (r) => [r.created_at, r.id]);
    },
    all: async () => (await db.all<Row>('SELECT * FROM brands ORDER BY created_at, id')).map(decode),
    /**
     * `patch.memory` is the new memory's JSON, already checked against its size limits. With
     * `readMemory` (the `memory_as_read` of the record the change was computed from), writes only if the memory
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
