import type { SqlExecutor } from '../../../platform/db/sql.js';
import type { EventName } from '../../domain.js';

export interface ContentEventRecord {
  id: string;
  name: EventName;
  brand_id: string;
  post_id: string;
  at: string;
  created_at: string;
}

const COLS = 'id, name, brand_id, post_id, at, created_at';

/**
 * The outbox of post events. A row is written in the transaction that changes the post, so the
 * event exists exactly when the change does; consumers claim one row at a time with a lease.
 */
export function contentEventsStore(db: SqlExecutor) {
  return {
    async add(e: ContentEventRecord): Promise<void> {
      await db.run(`INSERT INTO content_events (${COLS}) VALUES (?, ?, ?, ?, ?, ?)`, [
        e.id,
        e.name,
        e.brand_id,
        e.post_id,
        e.at,
        e.created_at,
      ]);
    },
    /**
     * Claims the oldest event nobody holds, in one statement: the inner SELECT picks it, and the
     * outer WHERE takes it only if it is still unclaimed when the UPDATE runs, so two instances
     * never both get it. Undefined when nothing is waiting.
     * PostgreSQL: the inner SELECT is where `FOR UPDATE SKIP LOCKED` belongs once the engine
     * lands (h-pgcore), so concurrent claimers skip each other's row instead of re-checking it.
     */
    claimNext(owner: string, now: string, leaseUntil: string): Promise<ContentEventRecord | undefined> {
      return db.get<ContentEventRecord>(
        `UPDATE content_events SET lease_owner = ?, lease_until = ?
          WHERE id = (SELECT id FROM content_events
                       WHERE done_at IS NULL AND (lease_until IS NULL OR lease_until <= ?)
                       ORDER BY created_at, id LIMIT 1)
            AND done_at IS NULL AND (lease_until IS NULL OR lease_until <= ?)
         RETURNING ${COLS}`,
        [owner, leaseUntil, now, now],
      );
    },
    /** Marks the event handled; only by the claim that still holds it. */
    async finish(id: string, owner: string, at: string): Promise<boolean> {
      const r = await db.run(
        'UPDATE content_events SET done_at = ?, lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?',
        [at, id, owner],
      );
      return r.changes > 0;
    },
    /** Handled events are kept a while for diagnosis, then dropped. */
    async purge(before: string): Promise<void> {
      await db.run('DELETE FROM content_events WHERE done_at IS NOT NULL AND done_at < ?', [before]);
    },
    pending: async () =>
      (await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM content_events WHERE done_at IS NULL'))?.n ?? 0,
  };
}
