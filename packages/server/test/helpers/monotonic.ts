import { vi } from 'vitest';
import type { SqlExecutor } from '../../src/platform/db/sql.js';

/**
 * Moves this process's monotonic clock (`performance.now`, which the services' stopwatches read)
 * ahead by hand, as if that much time had passed: the sweep of silent instances judges on it.
 * Restored by `vi.restoreAllMocks()`.
 */
export function monotonicAhead() {
  const real = performance.now.bind(performance);
  let offset = 0;
  vi.spyOn(performance, 'now').mockImplementation(() => real() + offset);
  return {
    advance(ms: number) {
      offset += ms;
    },
  };
}

/** Every heartbeat row's stamp now, by instance. */
export async function heartbeatStamps(db: SqlExecutor): Promise<Map<string, string>> {
  const rows = await db.all<{ instance: string; stamp: string }>(
    'SELECT instance, heartbeat_at AS stamp FROM key_epoch_instances',
  );
  return new Map(rows.map((r) => [r.instance, r.stamp]));
}

/**
 * Waits until each of `instances` has written a heartbeat since `before` (its stamp changed):
 * after the monotonic clock was moved ahead, the live instances beat on their next renewal.
 */
export async function heartbeatsSince(db: SqlExecutor, before: Map<string, string>, instances: string[]) {
  await vi.waitFor(
    async () => {
      const now = await heartbeatStamps(db);
      for (const instance of instances)
        if (now.get(instance) === before.get(instance)) throw new Error(`${instance} has not beaten yet`);
    },
    { timeout: 10_000, interval: 50 },
  );
}
