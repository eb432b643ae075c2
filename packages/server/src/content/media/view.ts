import type { VariantName } from './platforms.js';
import type { MediaAsset } from './schemas.js';
import type { MediaFile, MediaRecord } from './store.js';

/** The API shape of a stored asset: variant files become public URLs. */
/** `base` is CONTENT_PUBLIC_URL without a trailing slash, or '' for root-relative URLs. */
const fileUrl = (base: string, id: string, file: string) => `${base}/media/${id}/${file}`;

export function toAssetView(rec: MediaRecord, base: string): MediaAsset {
  const files = rec.variants;
  const variants: MediaAsset['variants'] = {};
  for (const [name, v] of Object.entries(files) as [VariantName, MediaFile][]) {
    variants[name] = {
      url: fileUrl(base, rec.id, v.file),
      mime: v.mime,
      width: v.width,
      height: v.height,
      bytes: v.bytes,
    };
  }
  return {
    id: rec.id,
    brand_id: rec.brand_id,
    kind: rec.kind,
    mime: rec.mime,
    bytes: rec.bytes,
    width: rec.width,
    height: rec.height,
    duration_ms: rec.duration_ms,
    alt: rec.alt,
    title: rec.title,
    tags: rec.tags,
    focal_point: { x: rec.focal_x, y: rec.focal_y },
    variants,
    source: rec.source,
    source_url: rec.source_url,
    created_at: rec.created_at,
    updated_at: rec.updated_at,
  };
}
