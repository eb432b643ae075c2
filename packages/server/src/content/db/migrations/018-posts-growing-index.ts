import type { Migration } from '../../../platform/db/sql.js';

/**
 * The background pass asks every tick for the published posts still growing (not settled). The
 * index on (status, published_at) made that read every published post ever, settled or not: a
 * million posts held the event loop for seconds each tick (`pnpm bench scale`). This partial
 * index holds only the posts still growing, a handful at any time.
 */
// The status and settled_at columns are there for the planner: with both as equality terms
// SQLite prefers this index over posts_published even before ANALYZE has counted anything.
const INDEX = `CREATE INDEX posts_growing ON posts (status, settled_at, published_at, id)
  WHERE status = 'published' AND settled_at IS NULL;`;

export const postsGrowingIndexMigration: Migration = {
  id: 18,
  name: 'index of the posts still growing',
  up: INDEX,
  postgres: INDEX,
};
