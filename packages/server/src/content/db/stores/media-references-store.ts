import type { SqlExecutor } from '../../../platform/db/sql.js';
import type { StoredPart } from './parts.js';

export type MediaOwner = { post_id: string } | { draft_id: string; draft_version: number };

/**
 * The `media_references` rows of one owner (migration 11), written by the store that writes the
 * owner's parts, in the same transaction: a reference exists exactly while a draft version or a
 * post shows the medium. Deleting the owner removes its rows by cascade.
 */
export function mediaReferencesStore(db: SqlExecutor) {
  const store = {
    /** Records the media in `parts` for a new owner (a post, or a draft's new version). */
    async add(owner: MediaOwner, parts: readonly StoredPart[]): Promise<void> {
      const media = parts.flatMap((p) => p.media ?? []).filter((m) => typeof m.asset_id === 'string');
      const [cols, keys] =
        'post_id' in owner
          ? ['post_id', [owner.post_id]]
          : ['draft_id, draft_version', [owner.draft_id, owner.draft_version]];
      for (const [position, m] of media.entries()) {
        await db.run(
          `INSERT INTO media_references (asset_id, url, ${cols}, position) VALUES (?, ?, ${keys.map(() => '?').join(', ')}, ?)`,
          [m.asset_id, m.url ?? null, ...keys, position],
        );
      }
    },
    /** A post's parts changed: its references become the media in `parts`. */
    async replace(owner: { post_id: string }, parts: readonly StoredPart[]): Promise<void> {
      await db.run('DELETE FROM media_references WHERE post_id = ?', [owner.post_id]);
      await store.add(owner, parts);
    },
  };
  return store;
}
