import type { Migration } from '../../../platform/db/sql.js';

/**
 * A media asset's title: the file name it was uploaded as (or the last segment of the URL it
 * was imported from), so the library and the draft editor name it the way the person knows it
 * rather than "Untitled image". Assets made before it existed get an empty title and keep
 * showing their alt text.
 */
export const mediaTitleMigration: Migration = {
  id: 16,
  name: 'media title',
  up: `ALTER TABLE media_assets ADD COLUMN title TEXT NOT NULL DEFAULT '';`,
  postgres: `ALTER TABLE media_assets ADD COLUMN title TEXT COLLATE "C" NOT NULL DEFAULT '';`,
};
