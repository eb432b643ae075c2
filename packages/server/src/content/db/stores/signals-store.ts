import type { SqlExecutor } from '../../../platform/db/sql.js';
import { SIGNAL_KINDS, type SignalKind } from '../../domain.js';
import { oneOf } from './decode.js';
import { afterClause, toPage } from './paging.js';

export interface SignalRow {
  id: string;
  brand_id: string;
  kind: SignalKind;
  title: string;
  summary: string;
  source_url: string | null;
  strength: number;
  observed_at: string;
  created_at: string;
}

const decode = (r: SignalRow): SignalRow => ({ ...r, kind: oneOf(SIGNAL_KINDS, 'signals', 'kind', r.kind) });

export function signalsStore(db: SqlExecutor) {
  return {
    async insert(r: SignalRow) {
      await db.run(
        `INSERT INTO signals (id, brand_id, kind, title, summary, source_url, strength, observed_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [r.id, r.brand_id, r.kind, r.title, r.summary, r.source_url, r.strength, r.observed_at, r.created_at],
      );
    },
    async get(id: string) {
      const row = await db.get<SignalRow>('SELECT * FROM signals WHERE id = ?', [id]);
      return row && decode(row);
    },
    async list(brandId: string, filter: { kind?: string }, limit: number, after?: string) {
      const a = afterClause(['observed_at', 'id'], after);
      const kind = filter.kind ? ' AND kind = ?' : '';
      const rows = await db.all<SignalRow>(
        `SELECT * FROM signals WHERE brand_id = ?${kind}${a.sql} ORDER BY observed_at DESC, id DESC LIMIT ?`,
        [brandId, ...(filter.kind ? [filter.kind] : []), ...a.params, limit + 1],
      );
      return toPage(rows.map(decode), limit, (r) => [r.observed_at, r.id]);
    },
    /** The strongest recent signals, for idea suggestions and digests. */
    strongest: async (brandId: string, since: string, limit: number) =>
      (
        await db.all<SignalRow>(
          'SELECT * FROM signals WHERE brand_id = ? AND observed_at >= ? ORDER BY strength DESC, observed_at DESC, id LIMIT ?',
          [brandId, since, limit],
        )
      ).map(decode),
    countSince: async (brandId: string, since: string) =>
      (
        await db.get<{ n: number }>(
          'SELECT COUNT(*) AS n FROM signals WHERE brand_id = ? AND observed_at >= ?',
          [brandId, since],
        )
      )?.n ?? 0,
  };
}
