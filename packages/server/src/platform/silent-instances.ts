import type { InstanceStamp } from './db/key-epoch-store.js';

/** What the sweep reads and deletes: the key epoch's heartbeat rows (db/key-epoch-store.ts). */
export interface StampedRows {
  stamps(): Promise<InstanceStamp[]>;
  forgetIfUnchanged(instance: string, stamp: string): Promise<boolean>;
}

/**
 * Deletes the heartbeat rows of instances that went silent (killed, or cut off for good), judged
 * on THIS process's monotonic clock: a row whose stamp was the same in two of this instance's
 * sweeps at least `silentMs` apart has had no heartbeat in between (stamps never repeat), and is
 * deleted if it still has that stamp. No wall clock takes part, so a clock that jumps cannot make
 * a live instance look silent.
 *
 * Why deleting is safe: a revoke waits for every row left (at most a key lease), so a deleted row
 * must not belong to an instance that holds a lease. An instance takes a lease only after a
 * heartbeat less than its heartbeat period old (5 s), and the lease lasts 2 s; `silentMs` (60 s)
 * leaves the rest for a slow write. If the instance was only paused, its next heartbeat writes the
 * row again before it can take a lease.
 *
 * Each instance remembers what it saw (one entry per row), so a crashed instance's row goes after
 * two sweeps of one instance `silentMs` apart; with sweeps under a lease that moves between
 * instances, it can take a period more.
 */
export function silentInstanceSweep(rows: StampedRows, opts: { silentMs: number; monotonic: () => number }) {
  const seen = new Map<string, { stamp: string; since: number }>();
  return async function sweep(): Promise<string[]> {
    // Judged from before the read is sent; first seen from after it returned (it may be older).
    const sent = opts.monotonic();
    const current = await rows.stamps();
    const returned = opts.monotonic();
    const removed: string[] = [];
    const present = new Set<string>();
    for (const { instance, stamp } of current) {
      present.add(instance);
      const before = seen.get(instance);
      if (before?.stamp !== stamp) {
        seen.set(instance, { stamp, since: returned });
      } else if (sent - before.since >= opts.silentMs && (await rows.forgetIfUnchanged(instance, stamp))) {
        removed.push(instance);
        seen.delete(instance);
      }
    }
    for (const instance of seen.keys()) if (!present.has(instance)) seen.delete(instance);
    return removed;
  };
}
