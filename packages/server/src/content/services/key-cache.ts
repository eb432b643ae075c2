import type { Dialect } from '../../platform/db/sql.js';
import { awaitAcknowledged, EpochLeaseCache } from '../../platform/epoch-lease-cache.js';
import { isGoneHere } from '../../platform/instance.js';
import type { Logger } from '../../platform/logger.js';
import type { ContentStores } from '../db/stores/index.js';
import type { ApiKeyView } from './api-keys.js';

/**
 * MCP keys found by hash, cached per instance under a lease on the key epoch (migration 21,
 * platform/epoch-lease-cache.ts). What it keeps: once the request that revokes a key has returned,
 * no instance on the database accepts it (docs/security.md, "API keys across instances").
 *
 * - KEY_LEASE_MS: how long one read of the epoch vouches for the cache. It bounds a revoke's wait
 *   for an instance that does not answer (stalled, cut off from the database).
 * - RENEW_EVERY_MS: how often the epoch is read; it bounds a revoke's wait for a live instance.
 * - HEARTBEAT_EVERY_MS / LIVE_MS: an instance rewrites its row this often; a row silent for LIVE_MS
 *   is not waited for. Such an instance cannot hold a lease: one is granted only after a
 *   heartbeat written less than HEARTBEAT_EVERY_MS earlier. Both are judged by the database's
 *   clock, so the 55 s between them is only for a slow heartbeat write.
 *
 * Heartbeats are stamped and compared by the database's clock (stores/key-epoch-store.ts), not by
 * any process's: they are compared across processes (instances, `svc-server keys revoke`) that may
 * run on machines whose clocks disagree, and a clock one process was handed (a test's manual
 * clock) means nothing to another.
 */
export const KEY_LEASE_MS = 2_000;
export const RENEW_EVERY_MS = 500;
export const HEARTBEAT_EVERY_MS = 5_000;
export const LIVE_MS = 60_000;
/**
 * Rows silent this long are deleted by the background pass. A process that is killed never
 * removes its row, and every start is a new instance id, so without it the table grows by one
 * row per crash for ever (harmless to revokes, which skip silent rows, but unbounded).
 */
export const PURGE_SILENT_MS = 60 * 60_000;
/** How often a revoke asks which instances have not yet seen it. */
const ACK_POLL_MS = 20;
/** Keys cached per instance; a workspace has a handful. */
const MAX_KEYS = 1_000;
/** A database that cannot be read is reported this often, not every renewal. */
const REPORT_EVERY_MS = 60_000;

export type KeyCache = EpochLeaseCache<ApiKeyView>;

export function keyCache(
  stores: ContentStores,
  deps: { instanceId: string; dialect: Dialect; logger: Logger; stopwatch: () => number },
): KeyCache {
  let reported = Number.NEGATIVE_INFINITY;
  return new EpochLeaseCache<ApiKeyView>(
    {
      read: () => stores.keyEpoch.read(),
      acknowledge: (epoch) => stores.keyEpoch.acknowledge(deps.instanceId, epoch, deps.dialect),
    },
    {
      leaseMs: KEY_LEASE_MS,
      renewEveryMs: RENEW_EVERY_MS,
      heartbeatEveryMs: HEARTBEAT_EVERY_MS,
      maxEntries: MAX_KEYS,
      monotonic: deps.stopwatch,
      onRenewalFailed: (err) => {
        if (deps.stopwatch() - reported < REPORT_EVERY_MS) return;
        reported = deps.stopwatch();
        deps.logger.warn({ err }, 'could not read the key epoch; MCP keys are looked up on every call');
      },
    },
  );
}

/**
 * After a change that moved the key epoch to `epoch` has committed: drops this instance's cache,
 * acknowledges the epoch, and waits until every other live instance has too (or until their leases
 * have run out). Rows of processes on this machine that no longer exist are not waited for.
 * Returns the instances waited out, for the log.
 */
export async function awaitKeyEpochSeen(
  { stores, db }: { stores: ContentStores; db: { dialect: Dialect } },
  deps: { keyCache?: KeyCache; stopwatch?: () => number },
  epoch: number,
): Promise<string[]> {
  deps.keyCache?.invalidate();
  await deps.keyCache?.renew({ fresh: true });
  return awaitAcknowledged({
    lagging: async () =>
      (await stores.keyEpoch.lagging(epoch, LIVE_MS, db.dialect)).filter((instance) => !isGoneHere(instance)),
    leaseMs: KEY_LEASE_MS,
    pollMs: ACK_POLL_MS,
    ...(deps.stopwatch ? { monotonic: deps.stopwatch } : {}),
  });
}
