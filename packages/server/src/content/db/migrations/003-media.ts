import type { Migration } from '../../../platform/db/sql.js';

/**
 * The media library. Files live under `<dataDir>/media/<asset id>/`; these rows say which
 * files exist, so the public `/media` route can only ever serve a file named here.
 */
export const mediaMigration: Migration = {
  id: 3,
  name: 'media library',
  up: `
      CREATE TABLE media_assets (
        id TEXT PRIMARY KEY,
        brand_id TEXT NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('image', 'video')),
        mime TEXT NOT NULL,
        bytes INTEGER NOT NULL,
        width INTEGER,
        height INTEGER,
        duration_ms INTEGER,
        alt TEXT NOT NULL DEFAULT '',
        focal_x REAL NOT NULL DEFAULT 0.5 CHECK (focal_x BETWEEN 0 AND 1),
        focal_y REAL NOT NULL DEFAULT 0.5 CHECK (focal_y BETWEEN 0 AND 1),
        -- JSON object: variant name -> { file, mime, width, height, bytes }. Replaced as a whole
        -- when the focal point changes, so readers never see a half-re-rendered set.
        variants TEXT NOT NULL,
        -- Bumped on every re-render; part of crop file names so each render has a new URL
        -- and the files can be cached forever.
        render_rev INTEGER NOT NULL DEFAULT 1,
        source TEXT NOT NULL CHECK (source IN ('upload', 'url')),
        source_url TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX media_assets_brand_newest ON media_assets (brand_id, created_at DESC, id DESC);

      -- Tags in their own table so the tag filter is an index lookup, not a LIKE over JSON.
      CREATE TABLE media_asset_tags (
        asset_id TEXT NOT NULL REFERENCES media_assets(id) ON DELETE CASCADE,
        tag TEXT NOT NULL,
        position INTEGER NOT NULL,
        PRIMARY KEY (asset_id, tag)
      );
      CREATE INDEX media_asset_tags_by_tag ON media_asset_tags (tag, asset_id);
    `,
  postgres: `
      CREATE TABLE media_assets (
        id TEXT COLLATE "C" PRIMARY KEY,
        brand_id TEXT COLLATE "C" NOT NULL REFERENCES brands(id) ON DELETE CASCADE,
        kind TEXT COLLATE "C" NOT NULL CHECK (kind IN ('image', 'video')),
        mime TEXT COLLATE "C" NOT NULL,
        bytes BIGINT NOT NULL,
        width BIGINT,
        height BIGINT,
        duration_ms BIGINT,
        alt TEXT COLLATE "C" NOT NULL DEFAULT '',
        focal_x DOUBLE PRECISION NOT NULL DEFAULT 0.5 CHECK (focal_x BETWEEN 0 AND 1),
        focal_y DOUBLE PRECISION NOT NULL DEFAULT 0.5 CHECK (focal_y BETWEEN 0 AND 1),
        variants TEXT COLLATE "C" NOT NULL,
        render_rev BIGINT NOT NULL DEFAULT 1,
        source TEXT COLLATE "C" NOT NULL CHECK (source IN ('upload', 'url')),
        source_url TEXT COLLATE "C",
        created_at TEXT COLLATE "C" NOT NULL,
        updated_at TEXT COLLATE "C" NOT NULL
      );
      CREATE INDEX media_assets_brand_newest ON media_assets (brand_id, created_at DESC, id DESC);

      CREATE TABLE media_asset_tags (
        asset_id TEXT COLLATE "C" NOT NULL REFERENCES media_assets(id) ON DELETE CASCADE,
        tag TEXT COLLATE "C" NOT NULL,
        position BIGINT NOT NULL,
        PRIMARY KEY (asset_id, tag)
      );
      CREATE INDEX media_asset_tags_by_tag ON media_asset_tags (tag, asset_id);
    `,
};
