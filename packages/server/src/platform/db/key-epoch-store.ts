import { databaseTimeAgo } from './database-clock.js';
import type { Dialect, SqlExecutor } from './sql.js';

/**
 * The key epoch (key-epoch-schema.ts: content migrations 21-22, commerce migration 16) and each
 * instance's acknowledgement of it. Both services keep the same two tables in their own database
 * (or schema); the epoch itself is moved only by the triggers on that service's `api_keys`, in the
 * transaction of the change.
 *
 * Heartbeats are stamped and judged by the database's clock, never by an instance's: with each
 * instance's wall clock, one running 60 s behind (or a revoking process 60 s ahead) looked
 * silent, was not waited for, and served a revoked key from its cache after the revoke returned.
 */
export type KeyEpochStore = ReturnType<typeof keyEpochStore>;

export function keyEpochStore(db: SqlExecutor) {
  return {
    /** The epoch now; 0 before any key was changed. PostgreSQL returns BIGINT as text, hence Number. */
    async read(): Promise<number> {
      const row = await db.get<{ epoch: number | string | null }>(
        'SELECT MAX(epoch) AS epoch FROM key_epoch',
      );
      return Number(row?.epoch ?? 0);
    },
    /**
     * This instance has seen `epoch` (and cleared its cache for it) and is alive now, by the
     * database's clock; `secondsAgo` backdates the stamp (tests: a row that went silent).
     */
    async acknowledge(instance: string, epoch: number, dialect: Dialect, secondsAgo = 0): Promise<void> {
      await db.run(
        `INSERT INTO key_epoch_instances (instance, seen_epoch, heartbeat_at) VALUES (?, ?, ${databaseTimeAgo(dialect)})
         ON CONFLICT (instance) DO UPDATE SET seen_epoch = excluded.seen_epoch, heartbeat_at = excluded.heartbeat_at`,
        [instance, epoch, secondsAgo],
      );
    },
    /** Instances that said they were alive within `liveMs` (database time) and have not seen `epoch`. */
    async lagging(epoch: number, liveMs: number, dialect: Dialect): Promise<string[]> {
      const rows = await db.all<{ instance: string }>(
        `SELECT instance FROM key_epoch_instances WHERE seen_epoch < ? AND heartbeat_at >= ${databaseTimeAgo(dialect)} ORDER BY instance`,
        [epoch, liveMs / 1000],
      );
      return rows.map((r) => r.instance);
    },
    /** An instance that stops (its row would otherwise be waited for until it looks dead). */
    async forget(instance: string): Promise<void> {
      await db.run('DELETE FROM key_epoch_instances WHERE instance = ?', [instance]);
    },
    /** Rows of instances silent for `silentMs` (crashed ones): housekeeping, not correctness. */
    async purge(silentMs: number, dialect: Dialect): Promise<void> {
      await db.run(`DELETE FROM key_epoch_instances WHERE heartbeat_at < ${databaseTimeAgo(dialect)}`, [
        silentMs / 1000,
      ]);
    },
  };
}
