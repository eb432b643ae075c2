import type { SqlExecutor } from '../../platform/db/sql.js';
import { decodeJson, oneOf } from '../db/stores/decode.js';
import { placeholders } from '../db/stores/paging.js';
/** One file of an asset. A video's original has no pixel size here. */
export interface MediaFile {
  file: string;
  mime: string;
  width: number | null;
  height: number | null;
  bytes: number;
}

/** An asset's files by variant name: always the original, and the crops an image has. */
export type MediaVariants = { original: MediaFile; [variant: string]: MediaFile };

export interface MediaRow {
  id: string;
  brand_id: string;
  kind: 'image' | 'video';
  mime: string;
  bytes: number;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  alt: string;
  /** The file name it was uploaded as, or the last segment of its URL; '' for older assets. */
  title: string;
  focal_x: number;
  focal_y: number;
  /** Variant name -> { file, mime, width, height, bytes } (a JSON column, decoded here). */
  variants: MediaVariants;
  render_rev: number;
  source: 'upload' | 'url';
  source_url: string | null;
  created_at: string;
  updated_at: string;
}

/** A row plus its tags in their saved order. */
export type MediaRecord = MediaRow & { tags: string[] };

const SELECT = 'SELECT a.* FROM media_assets a';

const decode = (r: MediaRow): MediaRow => ({
  ...r,
  kind: oneOf(['image', 'video'] as const, 'media_assets', 'kind', r.kind),
  source: oneOf(['upload', 'url'] as const, 'media_assets', 'source', r.source),
  variants: decodeJson<MediaVariants>('object', 'media_assets', 'variants', r.variants),
});

const UPDATABLE = ['alt', 'focal_x', 'focal_y', 'variants', 'render_rev', 'updated_at'] as const;

const EXISTING_IDS_PER_QUERY = 100;
const EXISTING_IDS_SQL = `SELECT id FROM media_assets WHERE id IN (${placeholders(EXISTING_IDS_PER_QUERY)})`;

export function mediaStore(db: SqlExecutor) {
  /** The rows with their tags, read by one plain query for all of them. */
  const withTags = async (rows: MediaRow[]): Promise<MediaRecord[]> => {
    if (rows.length === 0) return [];
    const tags = await db.all<{ asset_id: string; tag: string }>(
      `SELECT asset_id, tag FROM media_asset_tags WHERE asset_id IN (${rows.map(() => '?').join(', ')})
        ORDER BY asset_id, position`,
      rows.map((r) => r.id),
    );
    const byAsset = new Map<string, string[]>();
    for (const t of tags) byAsset.set(t.asset_id, [...(byAsset.get(t.asset_id) ?? []), t.tag]);
    return rows.map((r) => ({ ...decode(r), tags: byAsset.get(r.id) ?? [] }));
  };

  const writeTags = async (assetId: string, tags: readonly string[]) => {
    await db.run('DELETE FROM media_asset_tags WHERE asset_id = ?', [assetId]);
    for (const [position, tag] of tags.entries()) {
      await db.run('INSERT INTO media_asset_tags (asset_id, tag, position) VALUES (?, ?, ?)', [
        assetId,
        tag,
        position,
      ]);
    }
  };

  return {
    async brandExists(brandId: string): Promise<boolean> {
      return (await db.get('SELECT 1 AS one FROM brands WHERE id = ?', [brandId])) !== undefined;
    },

    /** Call inside a transaction: the row and its tags land together. */
    async insert(row: MediaRow, tags: readonly string[]): Promise<void> {
      await db.run(
        `INSERT INTO media_assets (id, brand_id, kind, mime, bytes, width, height, duration_ms, alt, title,
           focal_x, focal_y, variants, render_rev, source, source_url, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          row.id,
          row.brand_id,
          row.kind,
          row.mime,
          row.bytes,
          row.width,
          row.height,
          row.duration_ms,
          row.alt,
          row.title,
          row.focal_x,
          row.focal_y,
          JSON.stringify(row.variants),
          row.render_rev,
          row.source,
          row.source_url,
          row.created_at,
          row.updated_at,
        ],
      );
      await writeTags(row.id, tags);
    },

    async get(id: string): Promise<MediaRecord | undefined> {
      const row = await db.get<MediaRow>(`${SELECT} WHERE a.id = ?`, [id]);
      return row && (await withTags([row]))[0];
    },

    /** Newest first; `before` is the (created_at, id) of the last row of the previous page. */
    async list(
      brandId: string,
      opts: { tag?: string; limit: number; before?: { created_at: string; id: string } },
    ): Promise<MediaRecord[]> {
      const where = ['a.brand_id = ?'];
      const params: (string | number)[] = [brandId];
      if (opts.tag !== undefined) {
        where.push('EXISTS (SELECT 1 FROM media_asset_tags f WHERE f.asset_id = a.id AND f.tag = ?)');
        params.push(opts.tag);
      }
      if (opts.before) {
        where.push('(a.created_at < ? OR (a.created_at = ? AND a.id < ?))');
        params.push(opts.before.created_at, opts.before.created_at, opts.before.id);
      }
      const rows = await db.all<MediaRow>(
        `${SELECT} WHERE ${where.join(' AND ')} ORDER BY a.created_at DESC, a.id DESC LIMIT ?`,
        [...params, opts.limit],
      );
      return withTags(rows);
    },

    /** Call inside a transaction when tags change too. */
    async update(
      id: string,
      patch: Partial<Pick<MediaRow, 'alt' | 'focal_x' | 'focal_y' | 'variants' | 'render_rev'>> & {
        updated_at: string;
      },
      tags?: readonly string[],
    ): Promise<void> {
      const cols = UPDATABLE.filter((k) => k in patch);
      await db.run(`UPDATE media_assets SET ${cols.map((k) => `${k} = ?`).join(', ')} WHERE id = ?`, [
        ...cols.map((k) => (k === 'variants' ? JSON.stringify(patch.variants) : (patch[k] ?? null))),
        id,
      ]);
      if (tags) await writeTags(id, tags);
    },

    /**
     * Takes the asset's next render revision: its crops are rendered under that number (file names
     * carry it), so two renders never share a file name, even one by a holder that stalled past its
     * lease beside the one that took over. Null when the asset is gone.
     *
     * A render that then fails (or is refused at its fence) leaves the number unused: only a gap,
     * harmless. The row still names the previous crops, which are removed only once the row names
     * new ones, so the asset never goes without crops; the failed render's own files are removed
     * by the change that made them (media/service.ts, `update`), and if the process died first,
     * no row names them, and the orphan sweep (`sweepOrphans`) removes them a day on. Nothing reads
     * the number but the next claim.
     */
    async claimRevision(id: string): Promise<number | null> {
      const row = await db.get<{ render_rev: number | string }>(
        'UPDATE media_assets SET render_rev = render_rev + 1 WHERE id = ? RETURNING render_rev',
        [id],
      );
      return row ? Number(row.render_rev) : null;
    },

    async delete(id: string): Promise<boolean> {
      const { changes } = await db.run('DELETE FROM media_assets WHERE id = ?', [id]);
      return changes > 0;
    },

    /**
     * The files of an asset that drafts (any version) and posts refer to: the last segment of
     * each attached media URL of that asset. They stay served while referred to, whatever
     * happens to the asset (a new focal point, deletion). The drafts and posts stores keep
     * `media_references` in step with their parts (db/stores/media-references-store.ts).
     */
    async referencedFiles(assetId: string): Promise<Set<string>> {
      const rows = await db.all<{ url: string | null }>(
        'SELECT DISTINCT url FROM media_references WHERE asset_id = ? AND url IS NOT NULL',
        [assetId],
      );
      const suffix = `/media/${assetId}/`;
      const files = new Set<string>();
      for (const { url } of rows) {
        const at = url?.lastIndexOf(suffix) ?? -1;
        if (url && at >= 0) files.add(url.slice(at + suffix.length));
      }
      return files;
    },

    /**
     * Which of `ids` (every asset directory on disk, so as many as the library holds) have a row.
     * Asked in lists of EXISTING_IDS_PER_QUERY, the last one padded with its own first id, so
     * every call runs the one text: one `?` per directory passed SQLite's 32,766 variables (the
     * daily sweep failed from then on), and each count of directories made a statement of its own.
     */
    async existingIds(ids: readonly string[]): Promise<Set<string>> {
      const found = new Set<string>();
      for (let i = 0; i < ids.length; i += EXISTING_IDS_PER_QUERY) {
        const chunk = ids.slice(i, i + EXISTING_IDS_PER_QUERY);
        while (chunk.length < EXISTING_IDS_PER_QUERY) chunk.push(chunk[0] as string);
        for (const r of await db.all<{ id: string }>(EXISTING_IDS_SQL, chunk)) found.add(r.id);
      }
      return found;
    },
  };
}

export type MediaStore = ReturnType<typeof mediaStore>;
