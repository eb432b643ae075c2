import type { SqlExecutor } from '../../../platform/db/sqlite.js';

export type AttemptOutcome = 'published' | 'failed' | 'retry' | 'unconfirmed';

export interface PublishAttemptRow {
  id: string;
  post_id: string;
  platform: string;
  started_at: string;
  finished_at: string | null;
  outcome: AttemptOutcome | null;
  /** JSON array: the parts out when the attempt ended. */
  external_ids: string;
  error: string | null;
}

/** One row per call to a platform's publish, written before the call (see 006-publish-attempts). */
export function publishAttemptsStore(db: SqlExecutor) {
  return {
    async start(r: Pick<PublishAttemptRow, 'id' | 'post_id' | 'platform' | 'started_at'>) {
      await db.run('INSERT INTO publish_attempts (id, post_id, platform, started_at) VALUES (?, ?, ?, ?)', [
        r.id,
        r.post_id,
        r.platform,
        r.started_at,
      ]);
    },
    async finish(
      id: string,
      r: { outcome: AttemptOutcome; finished_at: string; external_ids: string[]; error: string | null },
    ) {
      await db.run(
        'UPDATE publish_attempts SET outcome = ?, finished_at = ?, external_ids = ?, error = ? WHERE id = ? AND outcome IS NULL',
        [r.outcome, r.finished_at, JSON.stringify(r.external_ids), r.error, id],
      );
    },
    /** Attempts that never got an outcome: the server stopped during the platform call. */
    open: () =>
      db.all<PublishAttemptRow>(
        'SELECT * FROM publish_attempts WHERE outcome IS NULL ORDER BY started_at, id',
      ),
    /** How many attempts in a row ended in `retry` (for the backoff). */
    async retriesOf(postId: string) {
      const rows = await db.all<{ outcome: string | null }>(
        'SELECT outcome FROM publish_attempts WHERE post_id = ? ORDER BY started_at DESC, id DESC',
        [postId],
      );
      let n = 0;
      for (const r of rows) {
        if (r.outcome !== 'retry') break;
        n++;
      }
      return n;
    },
    of: (postId: string) =>
      db.all<PublishAttemptRow>('SELECT * FROM publish_attempts WHERE post_id = ? ORDER BY started_at, id', [
        postId,
      ]),
  };
}
