import type { Migration } from '../../../platform/db/sql.js';

/**
 * Bounds brand_baselines (017). Its `baselines` held every engagement figure of the brand per
 * platform and standard age, so a brand with 100,000 posts read megabytes on every list. It now
 * holds a fixed-size summary per age (the count and the few values around the median, all a
 * verdict needs), and `histogram` holds what keeps the summary current: counts per value bucket,
 * at most a few hundred buckets per age however many posts (services/baselines.ts). Only the
 * writer of a snapshot reads `histogram`. NULL means the row is still in 017's form: it is read as
 * it is and rewritten in the bounded form at the brand's next snapshot.
 */
export const baselineHistogramsMigration: Migration = {
  id: 19,
  name: 'bounded brand baselines',
  up: 'ALTER TABLE brand_baselines ADD COLUMN histogram TEXT;',
  postgres: 'ALTER TABLE brand_baselines ADD COLUMN histogram TEXT COLLATE "C";',
};
