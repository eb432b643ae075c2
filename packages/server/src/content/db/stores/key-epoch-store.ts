import type { SqlExecutor } from '../../../platform/db/sql.js';

/**
 * The key epoch (migration 21) and each instance's acknowledgement of it. The epoch itself is
 * moved only by the triggers on `api_keys`, in the transaction of the change.
 */
export function keyEpochStore(db: SqlExecutor) {
  return {
    /** The epoch now; 0 before any key was changed. PostgreSQL returns BIGINT as text, hence Number. */
    async read(): Promise<number> {
      const row = await db.get<{ epoch: number | string | null }>(
        'SELECT MAX(epoch) AS epoch FROM key_epoch',
      );
      return Number(row?.epoch ?? 0);
    },
    /** This instance has seen `epoch` (and cleared its cache for it) and is alive at `at`. */
    async acknowledge(instance: string, epoch: number, at: string): Promise<void> {
      await db.run(
        `INSERT INTO key_epoch_instances (instance, seen_epoch, heartbeat_at) VALUES (?, ?, ?)
         ON CONFLICT (instance) DO UPDATE SET seen_epoch = excluded.seen_epoch, heartbeat_at = excluded.heartbeat_at`,
        [instance, epoch, at],
      );
    },
    /** Instances that said they were alive at or after `aliveSince` and have not seen `epoch`. */
    async lagging(epoch: number, aliveSince: string): Promise<string[]> {
      const rows = await db.all<{ instance: string }>(
        'SELECT instance FROM key_epoch_instances WHERE seen_epoch < ? AND heartbeat_at >= ? ORDER BY instance',
        [epoch, aliveSince],
      );
      return rows.map((r) => r.instance);
    },
    /** An instance that stops (its row would otherwise be waited for until it looks dead). */
    async forget(instance: string): Promise<void> {
      await db.run('DELETE FROM key_epoch_instances WHERE instance = ?', [instance]);
    },
    /** Rows of instances silent since `before` (crashed ones): housekeeping, not correctness. */
    async purge(before: string): Promise<void> {
      await db.run('DELETE FROM key_epoch_instances WHERE heartbeat_at < ?', [before]);
    },
  };
}
