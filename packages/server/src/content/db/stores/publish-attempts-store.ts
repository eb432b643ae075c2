import type { SqlExecutor } from '../../../platform/db/sql.js';
import { PLATFORMS, type Platform } from '../../domain.js';
import { decodeJson, oneOf, oneOfOrNull } from './decode.js';

export type AttemptOutcome = 'published' | 'failed' | 'retry' | 'unconfirmed';

export interface PublishAttemptRow {
  id: string;
  post_id: string;
  platform: Platform;
  started_at: string;
  finished_at: string | null;
  outcome: AttemptOutcome | null;
  /** The parts out when the attempt ended (a JSON column, decoded here). */
  external_ids: string[];
  error: string | null;
  /** The instance calling the platform (null on attempts from before migration 014). */
  owner: string | null;
  /** Until when the owner vouches for the call; it renews while the call runs. */
  lease_until: string | null;
}

/** One row per call to a platform's publish, written before the call (see 006-publish-attempts). */
const ATTEMPT_OUTCOMES = [
  'published',
  'failed',
  'retry',
  'unconfirmed',
] as const satisfies readonly AttemptOutcome[];

const decode = (r: PublishAttemptRow): PublishAttemptRow => ({
  ...r,
  platform: oneOf(PLATFORMS, 'publish_attempts', 'platform', r.platform),
  outcome: oneOfOrNull(ATTEMPT_OUTCOMES, 'publish_attempts', 'outcome', r.outcome),
  external_ids: decodeJson<string[]>('array', 'publish_attempts', 'external_ids', r.external_ids ?? '[]'),
});

export function publishAttemptsStore(db: SqlExecutor) {
  return {
    async start(
      r: Pick<PublishAttemptRow, 'id' | 'post_id' | 'platform' | 'started_at' | 'owner' | 'lease_until'>,
    ) {
      await db.run(
        'INSERT INTO publish_attempts (id, post_id, platform, started_at, owner, lease_until) VALUES (?, ?, ?, ?, ?, ?)',
        [r.id, r.post_id, r.platform, r.started_at, r.owner, r.lease_until],
      );
    },
    /** The owner says its call still runs; false once the attempt has an outcome (or another owner). */
    async renew(id: string, owner: string, leaseUntil: string) {
      const r = await db.run(
        'UPDATE publish_attempts SET lease_until = ? WHERE id = ? AND owner = ? AND outcome IS NULL',
        [leaseUntil, id, owner],
      );
      return r.changes > 0;
    },
    /**
     * Ends an attempt whose owner is gone, only if its lease is still the one `seen` (the owner did
     * not renew meanwhile) and it has no outcome: true when this call ended it.
     */
    async abandon(
      a: Pick<PublishAttemptRow, 'id' | 'lease_until'>,
      r: { finished_at: string; external_ids: string[]; error: string },
    ) {
      const res = await db.run(
        `UPDATE publish_attempts SET outcome = 'unconfirmed', finished_at = ?, external_ids = ?, error = ?
          WHERE id = ? AND outcome IS NULL AND COALESCE(lease_until, '') = ?`,
        [r.finished_at, JSON.stringify(r.external_ids), r.error, a.id, a.lease_until ?? ''],
      );
      return res.changes > 0;
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
    /** Attempts without an outcome: in flight on some instance, or interrupted (see `abandon`). */
    open: async () =>
      (
        await db.all<PublishAttemptRow>(
          'SELECT * FROM publish_attempts WHERE outcome IS NULL ORDER BY started_at, id',
        )
      ).map(decode),
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
    of: async (postId: string) =>
      (
        await db.all<PublishAttemptRow>(
          'SELECT * FROM publish_attempts WHERE post_id = ? ORDER BY started_at, id',
          [postId],
        )
      ).map(decode),
  };
}
