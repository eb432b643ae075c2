import type { Migration } from '../../../platform/db/sql.js';
import { SNAPSHOT_AGES_H } from '../../domain.js';

/**
 * What a verdict needs of a brand's snapshots, kept in the database so listing posts does not
 * read them all (services/baselines.ts): one row per brand whose `baselines` is JSON
 * `{"<platform>": {"posts": <posts with a snapshot>, "curve": {"<standard age>": [sorted engagements]}}}`.
 * Written in the transaction that writes the snapshot, so every instance reads it current; one
 * row per brand (not per platform) so a transaction that writes snapshots of several posts locks
 * one row per brand and two of them cannot deadlock over a brand's platforms. Existing snapshots
 * are folded in here.
 */
const AGES = SNAPSHOT_AGES_H.join(', ');
const ENGAGEMENTS = 'm.likes + m.comments + m.shares + m.clicks';
const PUBLISHED_SNAPSHOTS = "post_metrics m JOIN posts p ON p.id = m.post_id WHERE p.status = 'published'";

export const brandBaselinesMigration: Migration = {
  id: 17,
  name: 'brand baselines',
  up: (db) => {
    db.exec(`CREATE TABLE brand_baselines (
      brand_id TEXT PRIMARY KEY REFERENCES brands(id) ON DELETE CASCADE,
      baselines TEXT NOT NULL
    )`);
    const rows = db
      .prepare(
        `SELECT p.brand_id, p.platform, p.id AS post_id, m.age_h, ${ENGAGEMENTS} AS engagements
         FROM ${PUBLISHED_SNAPSHOTS}`,
      )
      .all() as { brand_id: string; platform: string; post_id: string; age_h: number; engagements: number }[];
    const brands = new Map<string, Record<string, { posts: number; curve: Record<string, number[]> }>>();
    const seen = new Set<string>();
    for (const r of rows) {
      const brand = brands.get(r.brand_id) ?? {};
      brands.set(r.brand_id, brand);
      const b = brand[r.platform] ?? { posts: 0, curve: {} };
      brand[r.platform] = b;
      if (!seen.has(r.post_id)) b.posts++;
      seen.add(r.post_id);
      if (!(SNAPSHOT_AGES_H as readonly number[]).includes(r.age_h)) continue;
      const values = b.curve[String(r.age_h)] ?? [];
      b.curve[String(r.age_h)] = values;
      values.push(r.engagements);
    }
    const insert = db.prepare('INSERT INTO brand_baselines (brand_id, baselines) VALUES (?, ?)');
    for (const [brandId, brand] of brands) {
      for (const b of Object.values(brand)) for (const v of Object.values(b.curve)) v.sort((x, y) => x - y);
      insert.run(brandId, JSON.stringify(brand));
    }
  },
  postgres: `
    CREATE TABLE brand_baselines (
      brand_id TEXT COLLATE "C" PRIMARY KEY REFERENCES brands(id) ON DELETE CASCADE,
      baselines TEXT COLLATE "C" NOT NULL
    );
    INSERT INTO brand_baselines (brand_id, baselines)
    SELECT g.brand_id, json_object_agg(g.platform, json_build_object('posts', g.posts, 'curve', COALESCE((
      SELECT json_object_agg(a.age_h, a.engagements) FROM (
        SELECT m.age_h, json_agg(${ENGAGEMENTS} ORDER BY ${ENGAGEMENTS}) AS engagements
        FROM ${PUBLISHED_SNAPSHOTS} AND p.brand_id = g.brand_id AND p.platform = g.platform
          AND m.age_h IN (${AGES})
        GROUP BY m.age_h
      ) a
    ), '{}'::json)))::text
    FROM (
      SELECT p.brand_id, p.platform, COUNT(DISTINCT p.id) AS posts FROM ${PUBLISHED_SNAPSHOTS}
      GROUP BY p.brand_id, p.platform
    ) g
    GROUP BY g.brand_id;
  `,
};
