import { decodeJson } from './decode.js';

/** One medium attached to a part, as drafts and posts store it. */
export interface StoredMedia {
  asset_id: string;
  variant: string;
  url: string | null;
  kind: string;
}

/** What a draft version or a post holds: its parts in order, media attached to each. */
export interface StoredPart {
  text: string;
  media: StoredMedia[];
}

/** The `parts` column of drafts, draft versions and posts. Parts written before media existed have none. */
export function partsOf(table: string, value: unknown): StoredPart[] {
  return decodeJson<Partial<StoredPart>[]>('array', table, 'parts', value).map((p) => ({
    text: String(p.text ?? ''),
    media: Array.isArray(p.media) ? p.media : [],
  }));
}
