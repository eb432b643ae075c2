import { type HeldLease, withLeaseLock } from '../../platform/db/lease-lock.js';
import { instanceName } from '../../platform/instance.js';
import type { MediaContext } from './context.js';

/** Longer than rendering one asset's crops takes (renewed while it runs); a holder that dies frees the asset after it. */
export const ASSET_LEASE_MS = 2 * 60_000;

/**
 * Serialises work per asset id across every instance on the database, so two focal-point changes
 * (or a change and a delete) cannot render over each other: each reads the row its predecessor
 * wrote, renders the next revision's files and only then writes the row. A process-local lock
 * would not do: the media folder and the rows are shared by all instances. Rendering touches the
 * file system, so the lock is a lease (platform/db/lease-lock.ts), not a transaction. `fn` writes
 * behind `lease.fence`, so a holder that stalled past its lease cannot write over the row of the
 * change that took over from it.
 */
export function assetLocks(ctx: MediaContext) {
  const instance = ctx.instanceId ?? instanceName(ctx.ids);
  const ttlMs = ctx.workLeaseMs ?? ASSET_LEASE_MS;
  return <T>(id: string, fn: (lease: HeldLease) => Promise<T>): Promise<T> =>
    withLeaseLock(
      ctx.db,
      `content:media:${id}`,
      {
        instance,
        ttlMs,
        waitMs: ttlMs + 15_000,
        what: `a change to media asset ${id}`,
      },
      fn,
    );
}
