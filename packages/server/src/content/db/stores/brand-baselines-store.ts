import type { SqlExecutor } from '../../../platform/db/sql.js';
import { placeholders } from './paging.js';

/** One platform's baseline: posts with a snapshot; per standard age, the sorted engagements. */
export interface PlatformBaseline {
  posts: number;
  curve: Record<string, number[]>;
}
/** A brand's baselines by platform. */
export type BrandBaselines = Record<string, PlatformBaseline>;

/**
 * The brand_baselines table (migration 017): what verdicts need of a brand's snapshots, one row
 * per brand. Only services/baselines.ts writes it, inside the snapshot's transaction.
 */
export function brandBaselinesStore(db: SqlExecutor) {
  return {
    async ofBrands(brandIds: string[]): Promise<Map<string, BrandBaselines>> {
      if (brandIds.length === 0) return new Map();
      const rows = await db.all<{ brand_id: string; baselines: string }>(
        `SELECT brand_id, baselines FROM brand_baselines WHERE brand_id IN (${placeholders(brandIds.length)})`,
        brandIds,
      );
      return new Map(rows.map((r) => [r.brand_id, JSON.parse(r.baselines) as BrandBaselines]));
    },
    /**
     * Makes sure the brand's row exists and locks it for the rest of the transaction (the no-op
     * UPDATE takes PostgreSQL's row lock; SQLite's writers are serial already), then reads it, so
     * the read-modify-write that follows cannot lose a snapshot another instance writes.
     */
    async lock(brandId: string): Promise<BrandBaselines> {
      await db.run(
        `INSERT INTO brand_baselines (brand_id, baselines) VALUES (?, '{}') ON CONFLICT (brand_id) DO NOTHING`,
        [brandId],
      );
      await db.run('UPDATE brand_baselines SET baselines = baselines WHERE brand_id = ?', [brandId]);
      const row = await db.get<{ baselines: string }>(
        'SELECT baselines FROM brand_baselines WHERE brand_id = ?',
        [brandId],
      );
      return JSON.parse(row?.baselines ?? '{}') as BrandBaselines;
    },
    async save(brandId: string, baselines: BrandBaselines) {
      await db.run('UPDATE brand_baselines SET baselines = ? WHERE brand_id = ?', [
        JSON.stringify(baselines),
        brandId,
      ]);
    },
  };
}
