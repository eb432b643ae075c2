import type { Migration } from '../../../platform/db/sql.js';

/**
 * Digests, voice refresh, best times and the outcomes endpoint read a brand's published posts by
 * date (the last 7 days, the last 8 weeks) and, for each, its snapshots by primary key. The only
 * index with the brand first was ordered by sort_at, so a window of days walked every post the
 * brand ever had, drafts and scheduled ones included. This partial index holds the published posts
 * of each brand in publishing order: a window reads the posts in it and no others.
 */
const INDEX = `CREATE INDEX posts_brand_published ON posts (brand_id, published_at, id)
  WHERE status = 'published';`;

export const brandPublishedIndexMigration: Migration = {
  id: 20,
  name: "index of each brand's published posts by date",
  up: INDEX,
  postgres: INDEX,
};
