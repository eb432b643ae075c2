import type { Migration } from '../../../platform/db/sql.js';

/**
 * Which drafts and posts refer to which media assets, as rows instead of a search through their
 * `parts` JSON (SQLite's JSON1 functions have no PostgreSQL twin). One row per attached medium:
 * its asset, the URL the part holds (the file it names stays served; see media/service.ts), and
 * its owner — a draft version or a post — with its position among the owner's media.
 *
 * Each owner is a foreign key that cascades, so a reference goes when the version (with its
 * draft, or its brand) or the post goes, on both engines. The asset is deliberately not one: a
 * deleted asset's files stay served while a draft or post still shows them.
 *
 * The SQLite step fills the table from the JSON already stored; PostgreSQL databases start empty.
 */
const table = (text: string, int: string) => `
    CREATE TABLE media_references (
      asset_id ${text} NOT NULL,
      url ${text},
      post_id ${text} REFERENCES posts(id) ON DELETE CASCADE,
      draft_id ${text},
      draft_version ${int},
      position ${int} NOT NULL,
      FOREIGN KEY (draft_id, draft_version) REFERENCES draft_versions(draft_id, version) ON DELETE CASCADE,
      CHECK ((post_id IS NULL) <> (draft_id IS NULL)),
      CHECK ((draft_id IS NULL) = (draft_version IS NULL))
    );
    CREATE INDEX media_references_asset ON media_references (asset_id);
    CREATE UNIQUE INDEX media_references_post ON media_references (post_id, position)
      WHERE post_id IS NOT NULL;
    CREATE UNIQUE INDEX media_references_draft ON media_references (draft_id, draft_version, position)
      WHERE draft_id IS NOT NULL;`;

/** Every attached medium of `table`'s parts, numbered in order within its row (SQLite only). */
const backfill = (table: string, owner: string, ownerKey: string) => `
    INSERT INTO media_references (asset_id, url, ${owner}, position)
    SELECT json_extract(m.value, '$.asset_id'), json_extract(m.value, '$.url'), ${ownerKey},
           ROW_NUMBER() OVER (PARTITION BY ${ownerKey} ORDER BY p.key, m.key) - 1
      FROM ${table} t, json_each(t.parts) p, json_each(json_extract(p.value, '$.media')) m
     WHERE json_extract(m.value, '$.asset_id') IS NOT NULL;`;

export const mediaReferencesMigration: Migration = {
  id: 11,
  name: 'media references as a table',
  up: `${table('TEXT', 'INTEGER')}
    ${backfill('posts', 'post_id', 't.id')}
    ${backfill('draft_versions', 'draft_id, draft_version', 't.draft_id, t.version')}`,
  postgres: table('TEXT COLLATE "C"', 'BIGINT'),
};
