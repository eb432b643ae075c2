import type { SqlExecutor } from '../../../platform/db/sql.js';
import { placeholders } from './paging.js';

/**
 * What a verdict needs at one standard age: how many values there are (`n`) and the values at
 * sorted positions `lo` … `lo + mid.length - 1`, the few around the median.
 */
export interface AgeSummary {
  n: number;
  lo: number;
  mid: number[];
}
/** One platform's baseline: posts with a snapshot; per standard age, its summary. */
export interface PlatformBaseline {
  posts: number;
  curve: Record<string, AgeSummary>;
}
/** A brand's baselines by platform. */
export type BrandBaselines = Record<string, PlatformBaseline>;
/** Per platform, per standard age: value bucket → count (services/baselines.ts). */
export type BrandHistograms = Record<string, Record<string, Record<string, number>>>;
/**
 * The `baselines` column as stored: migration 017 wrote the whole sorted list per age where the
 * summary is now; such a row has no histogram yet.
 */
export type StoredBaselines = Record<string, { posts: number; curve: Record<string, AgeSummary | number[]> }>;

/** The `baselines` column as read (text on both engines). */
export const decodeStoredBaselines = (text: string): StoredBaselines => JSON.parse(text) as StoredBaselines;

/**
 * The brand_baselines table (migrations 017, 019): what verdicts need of a brand's snapshots, one
 * row per brand. Only services/baselines.ts writes it, inside the snapshot's transaction.
 */
export function brandBaselinesStore(db: SqlExecutor) {
  return {
    /** The summaries only: what listing posts reads, a few hundred bytes per platform. */
    async ofBrands(brandIds: string[]): Promise<Map<string, StoredBaselines>> {
      if (brandIds.length === 0) return new Map();
      const rows = await db.all<{ brand_id: string; baselines: string }>(
        `SELECT brand_id, baselines FROM brand_baselines WHERE brand_id IN (${placeholders(brandIds.length)})`,
        brandIds,
      );
      return new Map(rows.map((r) => [r.brand_id, decodeStoredBaselines(r.baselines)]));
    },
    /**
     * Makes sure the brand's row exists and locks it for the rest of the transaction (the no-op
     * UPDATE takes PostgreSQL's row lock; SQLite's writers are serial already), then reads it, so
     * the read-modify-write that follows cannot lose a snapshot another instance writes.
     */
    async lock(brandId: string): Promise<{ stored: StoredBaselines; histogram: BrandHistograms | null }> {
      await db.run(
        `INSERT INTO brand_baselines (brand_id, baselines, histogram) VALUES (?, '{}', '{}') ON CONFLICT (brand_id) DO NOTHING`,
        [brandId],
      );
      await db.run('UPDATE brand_baselines SET baselines = baselines WHERE brand_id = ?', [brandId]);
      const row = await db.get<{ baselines: string; histogram: string | null }>(
        'SELECT baselines, histogram FROM brand_baselines WHERE brand_id = ?',
        [brandId],
      );
      return {
        stored: JSON.parse(row?.baselines ?? '{}') as StoredBaselines,
        histogram: row?.histogram == null ? null : (JSON.parse(row.histogram) as BrandHistograms),
      };
    },
    async save(brandId: string, baselines: BrandBaselines, histogram: BrandHistograms) {
      await db.run('UPDATE brand_baselines SET baselines = ?, histogram = ? WHERE brand_id = ?', [
        JSON.stringify(baselines),
        JSON.stringify(histogram),
        brandId,
      ]);
    },
  };
}
