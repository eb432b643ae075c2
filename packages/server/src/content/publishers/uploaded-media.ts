/**
 * Media ids a platform gave on an earlier attempt of the same post, so a retry posts them instead
 * of uploading the file again. It matters most for an X GIF that is still processing when svc
 * stops waiting (60 s): uploaded anew on each retry, X would start processing from scratch every
 * time and a slow GIF would never go out; with its id, the retry only asks X how it is going.
 *
 * A cache, not a record: nothing is posted with an id until X says it is processed, so losing an
 * entry (a restart, kill -9 between the upload and the post, another instance taking the retry)
 * costs one upload and never a wrong or half-made post. Keys name the file, so a re-rendered
 * variant (new file name) is never matched with an id for the old bytes.
 *
 * An id belongs to the account that uploaded it, and keying by the post keeps it there: a post
 * stays on its channel, and a channel on its account (connecting another account makes another
 * channel and disconnects the old one, services/oauth-connect.ts), so a retry runs with the same
 * account's token or not at all (test/content/live-publish.test.ts, "another X account").
 */

/** An id is reused only while it has at least this long to live: the post must reach X first. */
export const REUSE_MARGIN_MS = 10 * 60_000;
/** Entries kept at most; the oldest goes first. Each is a few dozen bytes. */
export const MAX_REMEMBERED = 1_000;

export interface UploadedMediaKey {
  postId: string;
  platform: string;
  assetId: string;
  file: string;
}

export function uploadedMediaCache(maxEntries = MAX_REMEMBERED) {
  const entries = new Map<string, { postId: string; id: string; expiresAt: number }>();
  const keyOf = (k: UploadedMediaKey) => JSON.stringify([k.postId, k.platform, k.assetId, k.file]);
  return {
    /** The id to reuse, if one was remembered and lives past the margin. */
    get(k: UploadedMediaKey, nowMs: number): string | undefined {
      const key = keyOf(k);
      const hit = entries.get(key);
      if (!hit) return undefined;
      if (hit.expiresAt - REUSE_MARGIN_MS > nowMs) return hit.id;
      entries.delete(key);
      return undefined;
    },
    remember(k: UploadedMediaKey, id: string, expiresAt: number) {
      const key = keyOf(k);
      entries.delete(key);
      entries.set(key, { postId: k.postId, id, expiresAt });
      // Map keeps insertion order: the first key is the oldest.
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    /** After a post is out or has failed for good, its ids are of no further use. */
    forgetPost(postId: string) {
      for (const [key, e] of entries) if (e.postId === postId) entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
export type UploadedMediaCache = ReturnType<typeof uploadedMediaCache>;
