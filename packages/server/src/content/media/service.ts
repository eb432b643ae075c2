import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { HeldLease } from '../../platform/db/lease-lock.js';
import { leasesStore } from '../../platform/db/leases-store.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import { invalidRequest, notFound } from '../../platform/errors.js';
import { trimTrailingSlashes } from '../../platform/trim-end.js';
import { PAGE, type Platform } from '../domain.js';
import { buildAssetFiles } from './build.js';
import type { MediaContext } from './context.js';
import { downloadTo, publicMediaFetcher } from './fetch-url.js';
import {
  assetDir,
  entriesOlderThan,
  listAssetDirs,
  mediaRoot,
  moveIntoPlace,
  newTempFile,
  pruneAssetDir,
  pruneStaleFiles,
  removeQuietly,
  stagingDir,
} from './files.js';
import { assessFit } from './fit.js';
import { DEFAULT_MEDIA_LIMITS } from './limits.js';
import { assetLocks } from './locks.js';
import { goesWhole, PLATFORM_MEDIA, type VariantName } from './platforms.js';
import { cropsAlpha, type FocalPoint, renderCrops, type VariantFile } from './render.js';
import type { MediaAsset, MediaFit } from './schemas.js';
import { type MediaFile, type MediaRecord, type MediaRow, mediaStore } from './store.js';
import { titleFrom, titleFromUrl } from './title.js';
import type { UploadedFile } from './upload.js';
import { toAssetView } from './view.js';

/**
 * What the orphan sweep leaves alone: anything changed more recently than this. A day is far
 * beyond any upload, download or render, so it never mistakes another instance's work in flight
 * for an orphan; leftovers just wait a day longer.
 */
export const ORPHAN_MIN_AGE_MS = 24 * 60 * 60 * 1000;

export interface MediaMeta {
  alt?: string | undefined;
  tags?: string[] | undefined;
}

export interface MediaPatch extends MediaMeta {
  focal_point?: FocalPoint | undefined;
}

export interface MediaListPage {
  assets: MediaAsset[];
  has_more: boolean;
  next_after: string | null;
}

export type MediaService = ReturnType<typeof createMediaService>;

/** The types of the files this module writes, for earlier renders no longer listed in a row. */
const FILE_MIME: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  webm: 'video/webm',
};

export function createMediaService(ctx: MediaContext) {
  const limits = { ...DEFAULT_MEDIA_LIMITS, ...ctx.mediaLimits };
  const fetcher = ctx.mediaFetcher ?? publicMediaFetcher;
  const root = mediaRoot(ctx.config);
  const store = mediaStore(ctx.db);
  const base = trimTrailingSlashes(ctx.config.content.publicUrl ?? '');
  const now = () => ctx.clock.now().toISOString();

  const withLock = assetLocks(ctx);
  /** A write of the asset's change, in one transaction behind the asset lease's fence (locks.ts). */
  const fenced = <T>(lease: HeldLease, write: (tx: SqlExecutor) => Promise<T>) =>
    ctx.db.transaction(async (tx) => {
      await lease.fence(leasesStore(tx));
      return write(tx);
    });

  const view = (rec: MediaRecord) => toAssetView(rec, base);

  const requireBrand = async (brandId: string) => {
    if (!(await store.brandExists(brandId))) throw notFound('brand', brandId);
  };

  const requireRecord = async (brandId: string | null, assetId: string): Promise<MediaRecord> => {
    const rec = await store.get(assetId);
    if (!rec || (brandId !== null && rec.brand_id !== brandId)) throw notFound('media asset', assetId);
    return rec;
  };

  /**
   * Turns a file on disk into an asset. Files are built in staging and moved into place
   * before the row is written; any failure removes whatever was made, so there is never
   * a row without files or a directory that the API can see half-built.
   */
  async function ingest(
    brandId: string,
    tmp: { path: string; bytes: number },
    meta: MediaMeta & { title: string },
    source: { kind: 'upload' | 'url'; url: string | null },
  ): Promise<MediaAsset> {
    const id = ctx.ids.make('med');
    const staging = stagingDir(root, id);
    const finalDir = assetDir(root, id);
    await mkdir(staging, { recursive: true });
    let placed = false;
    try {
      const built = await buildAssetFiles(tmp.path, tmp.bytes, staging, limits);
      await moveIntoPlace(staging, finalDir);
      placed = true;
      const at = now();
      const row: MediaRow = {
        id,
        brand_id: brandId,
        kind: built.kind,
        mime: built.original.mime,
        bytes: built.original.bytes,
        width: built.original.width,
        height: built.original.height,
        duration_ms: built.durationMs,
        alt: meta.alt ?? '',
        title: meta.title,
        focal_x: 0.5,
        focal_y: 0.5,
        variants: built.variants,
        render_rev: 1,
        source: source.kind,
        source_url: source.url,
        created_at: at,
        updated_at: at,
      };
      await ctx.db.transaction((tx) => mediaStore(tx).insert(row, meta.tags ?? []));
      return view({ ...row, tags: meta.tags ?? [] });
    } catch (err) {
      await removeQuietly(placed ? finalDir : staging);
      throw err;
    }
  }

  return {
    /**
     * What attach_media attaches when no variant is named: the platform's preferred crop, but the
     * original for video and an animated GIF, which a crop (a still) would flatten.
     */
    defaultVariant(asset: { kind?: unknown; mime?: unknown }, platform: Platform): VariantName {
      return goesWhole(asset) ? 'original' : PLATFORM_MEDIA[platform].preferred;
    },

    /** The public URL of one variant, or null when the asset has no such variant (video has only `original`). */
    variantUrl(asset: { id: string; variants?: unknown }, variant: string): string | null {
      const v = (asset.variants as Record<string, { url?: unknown } | undefined> | undefined)?.[variant];
      return typeof v?.url === 'string' ? v.url : null;
    },

    /**
     * What attach_media should attach: the named variant, else the platform's preferred crop;
     * video and an animated GIF use their original. Throws INVALID_REQUEST for a variant the asset lacks.
     */
    pickVariant(asset: MediaAsset, platform: Platform, requested?: VariantName) {
      const variant: VariantName =
        requested ?? (goesWhole(asset) ? 'original' : PLATFORM_MEDIA[platform].preferred);
      const v = asset.variants[variant];
      if (!v) {
        const have = Object.keys(asset.variants).join(', ');
        throw invalidRequest(`Asset ${asset.id} has no '${variant}' variant (it has: ${have}).`, 'variant');
      }
      return { variant, ...v };
    },

    async getAsset(brandId: string | null, assetId: string): Promise<MediaAsset> {
      return view(await requireRecord(brandId, assetId));
    },

    async listAssets(
      brandId: string,
      opts: { tag?: string | undefined; limit?: number | undefined; after?: string | null | undefined } = {},
    ): Promise<MediaListPage> {
      await requireBrand(brandId);
      const limit = Math.min(Math.max(Math.trunc(opts.limit ?? PAGE.defaultLimit), 1), PAGE.maxLimit);
      let before: { created_at: string; id: string } | undefined;
      if (opts.after) {
        const cursor = await store.get(opts.after);
        if (!cursor || cursor.brand_id !== brandId) {
          throw invalidRequest(`'after' must be the id of an asset of brand ${brandId}.`, 'after');
        }
        before = { created_at: cursor.created_at, id: cursor.id };
      }
      const tag = opts.tag?.trim().toLowerCase();
      const rows = await store.list(brandId, {
        limit: limit + 1,
        ...(tag ? { tag } : {}),
        ...(before ? { before } : {}),
      });
      const page = rows.slice(0, limit).map(view);
      const hasMore = rows.length > limit;
      return { assets: page, has_more: hasMore, next_after: hasMore ? (page.at(-1)?.id ?? null) : null };
    },

    async upload(brandId: string, file: UploadedFile, meta: MediaMeta): Promise<MediaAsset> {
      await requireBrand(brandId);
      return ingest(
        brandId,
        file,
        { ...meta, title: titleFrom(file.filename) },
        { kind: 'upload', url: null },
      );
    },

    async importFromUrl(brandId: string, input: MediaMeta & { url: string }): Promise<MediaAsset> {
      await requireBrand(brandId);
      const path = await newTempFile(root);
      try {
        const { bytes } = await downloadTo(fetcher, input.url, path, limits);
        return await ingest(
          brandId,
          { path, bytes },
          { ...input, title: titleFromUrl(input.url) },
          { kind: 'url', url: input.url },
        );
      } finally {
        await removeQuietly(path);
      }
    },

    async update(assetId: string, patch: MediaPatch): Promise<MediaAsset> {
      return withLock(assetId, async (lease) => {
        const rec = await requireRecord(null, assetId);
        const changes: Parameters<typeof store.update>[1] = { updated_at: now() };
        if (patch.alt !== undefined) changes.alt = patch.alt;
        const dir = assetDir(root, assetId);
        let made: VariantFile[] = [];
        let replaced: MediaFile[] = [];
        const focal = patch.focal_point;
        if (focal && (focal.x !== rec.focal_x || focal.y !== rec.focal_y)) {
          if (rec.kind === 'video')
            throw invalidRequest('Video has no crops, so it takes no focal point.', 'focal_point');
          const files = rec.variants;
          const { width, height } = files.original;
          if (width === null || height === null)
            throw invalidRequest('This asset has no pixel size, so it takes no focal point.', 'focal_point');
          const rev = await fenced(lease, (tx) => mediaStore(tx).claimRevision(assetId));
          if (rev === null) throw notFound('media asset', assetId);
          const crops = await renderCrops({ ...files.original, width, height }, dir, {
            focal,
            rev,
            alpha: cropsAlpha(files.original.mime, files.original.mime === 'image/png'),
            maxPixels: limits.maxInputPixels,
            signal: lease.signal,
          }).catch(async (err) => {
            // Remove whichever crops of this revision were written before the failure.
            await Promise.all(
              Object.keys(files)
                .filter((n) => n !== 'original')
                .flatMap((n) =>
                  ['jpg', 'png'].map((ext) => rm(join(dir, `${n}.${rev}.${ext}`), { force: true })),
                ),
            );
            throw err;
          });
          made = Object.values(crops);
          replaced = Object.values(files).filter((f) => f.file !== files.original.file);
          Object.assign(changes, { focal_x: focal.x, focal_y: focal.y });
          changes.variants = { original: files.original, ...crops };
        }
        try {
          // Refused (LOCK_LOST) when this change stalled past its lease and another took over.
          await fenced(lease, (tx) => mediaStore(tx).update(assetId, changes, patch.tags));
        } catch (err) {
          await Promise.all(made.map((f) => removeQuietly(join(dir, f.file))));
          throw err;
        }
        // Old crops go only after the row points at the new ones, so no URL in a response ever
        // 404s early, and only when no draft or post refers to them: those keep what was attached.
        const kept = await store.referencedFiles(assetId);
        await Promise.all(
          replaced.filter((f) => !kept.has(f.file)).map((f) => removeQuietly(join(dir, f.file))),
        );
        return view(await requireRecord(null, assetId));
      });
    },

    /**
     * Removes the asset from the library (no longer listed, fetched or attachable). Files that
     * drafts or posts refer to stay served until nothing refers to them; the rest go at once.
     */
    async remove(assetId: string): Promise<void> {
      await withLock(assetId, async (lease) => {
        if (!(await fenced(lease, (tx) => mediaStore(tx).delete(assetId))))
          throw notFound('media asset', assetId);
        await pruneAssetDir(root, assetId, await store.referencedFiles(assetId));
      });
    },

    async fit(assetId: string): Promise<MediaFit> {
      return assessFit(view(await requireRecord(null, assetId)));
    },

    /**
     * For the public /media route: a file the asset's row names, or an earlier render (or a
     * deleted asset's file) that a draft or post still refers to. Never a path built from
     * anything else. The answer is the asset's own directory and a bare file name, so the sender
     * can be confined to that directory and judge only the name (the data folder itself may sit
     * under a dot-folder such as the default `./.data`).
     */
    async resolveFile(
      assetId: string,
      file: string,
    ): Promise<{ dir: string; file: string; mime: string } | null> {
      const rec = await store.get(assetId);
      const match = rec ? Object.values(rec.variants).find((v) => v.file === file) : undefined;
      if (match) return { dir: assetDir(root, assetId), file: match.file, mime: match.mime };
      const mime = FILE_MIME[file.slice(file.lastIndexOf('.') + 1)];
      if (!mime || !(await store.referencedFiles(assetId)).has(file)) return null;
      return { dir: assetDir(root, assetId), file, mime };
    },

    /**
     * Removes what nothing refers to any more: files of an asset directory that neither the
     * asset's row nor a draft or post names, asset directories left empty (after a brand
     * deletion: ON DELETE CASCADE removes rows, not files), and `.staging`/`.tmp` leftovers of a
     * crash. Safe while other instances share the media folder: only what was last changed more
     * than `ORPHAN_MIN_AGE_MS` ago is touched, far longer than an upload, a build or a re-render
     * takes, so another instance's work in flight (a staging build, a directory moved into place
     * whose row is not written yet) is never taken for an orphan. The background pass runs it once
     * a day under a lease (content app.ts). Returns how many asset directories it removed.
     */
    async sweepOrphans(): Promise<number> {
      // File times come from the operating system, so they are compared with its clock, not the
      // injected one (a sandbox or test clock may be anywhere in time).
      const cutoff = Date.now() - ORPHAN_MIN_AGE_MS;
      for (const area of ['.staging', '.tmp']) {
        const dir = join(root, area);
        for (const name of await entriesOlderThan(dir, cutoff)) await removeQuietly(join(dir, name));
      }
      const dirs = await listAssetDirs(root);
      const known = await store.existingIds(dirs);
      let removed = 0;
      for (const d of dirs) {
        const keep = await store.referencedFiles(d);
        if (known.has(d)) {
          const rec = await store.get(d);
          for (const v of Object.values(rec?.variants ?? {})) keep.add(v.file);
        }
        if (await pruneStaleFiles(root, d, keep, cutoff)) removed++;
      }
      return removed;
    },
  };
}
