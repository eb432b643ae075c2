import { databaseNow } from './database-clock.js';
import type { Dialect, SqlExecutor } from './sql.js';

/**
 * The key epoch (key-epoch-schema.ts: content migrations 21-22, commerce migration 16) and each
 * instance's acknowledgement of it. Both services keep the same two tables in their own database
 * (or schema); the epoch itself is moved only by the triggers on that service's `api_keys`, in the
 * transaction of the change.
 *
 * No clock judges whether an instance is alive. Each heartbeat writes a stamp that never repeats:
 * the database's time (for an operator's eyes only) and the instance's own heartbeat count,
 * `2026-11-27T15:30:00.123Z #42`. A revoke waits for every row that has not seen its epoch; a row
 * is deleted (platform/silent-instances.ts) only once its stamp has stayed the same for a long
 * time on the sweeping instance's monotonic clock. Judging by a time in the row failed twice: with
 * each instance's wall clock (one 60 s behind looked silent, eighth pass), and with the database's
 * (SQLite's is the writing process's wall clock, and PostgreSQL's can step): a clock that jumped
 * over 60 s made a live instance look silent, the revoke did not wait for it, and it served the
 * revoked key from its cache after the revoke had returned.
 */
export type KeyEpochStore = ReturnType<typeof keyEpochStore>;

/** One row as the sweep sees it: its stamp changes with every heartbeat. */
export interface InstanceStamp {
  instance: string;
  stamp: string;
}

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
     * This instance has seen `epoch` (and cleared its cache for it) and is alive: its `beat`-th
     * heartbeat. `beat` must grow with every call of one instance, so that a stamp never repeats
     * (a sweep that saw it long ago must not take a later heartbeat for the same one).
     */
    async acknowledge(instance: string, epoch: number, dialect: Dialect, beat: number): Promise<void> {
      await db.run(
        `INSERT INTO key_epoch_instances (instance, seen_epoch, heartbeat_at)
           VALUES (?, ?, ${databaseNow(dialect)} || ' #' || ?)
         ON CONFLICT (instance) DO UPDATE SET seen_epoch = excluded.seen_epoch, heartbeat_at = excluded.heartbeat_at`,
        [instance, epoch, String(beat)],
      );
    },
    /** Instances whose row has not seen `epoch`: a revoke waits for each (at most a lease). */
    async lagging(epoch: number): Promise<string[]> {
      const rows = await db.all<{ instance: string }>(
        'SELECT instance FROM key_epoch_instances WHERE seen_epoch < ? ORDER BY instance',
        [epoch],
      );
      return rows.map((r) => r.instance);
    },
    /** Every row's current stamp, for the sweep of silent instances. */
    async stamps(): Promise<InstanceStamp[]> {
      return db.all<InstanceStamp>('SELECT instance, heartbeat_at AS stamp FROM key_epoch_instances');
    },
    /**
     * Deletes an instance's row only if its stamp is still `stamp` (no heartbeat since): true when
     * deleted. A heartbeat that lands after it writes the row again.
     */
    async forgetIfUnchanged(instance: string, stamp: string): Promise<boolean> {
      const r = await db.run('DELETE FROM key_epoch_instances WHERE instance = ? AND heartbeat_at = ?', [
        instance,
        stamp,
      ]);
      return r.changes > 0;
    },
    /** An instance that stops (its row would otherwise be waited for until it is swept). */
    async forget(instance: string): Promise<void> {
      await db.run('DELETE FROM key_epoch_instances WHERE instance = ?', [instance]);
    },
  };
}
