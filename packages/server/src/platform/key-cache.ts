import { lastUsedIsStale } from './api-key-hash.js';
import type { KeyEpochStore } from './db/key-epoch-store.js';
import type { Dialect } from './db/sql.js';
import { awaitAcknowledged, EpochLeaseCache } from './epoch-lease-cache.js';
import { isGoneHere } from './instance.js';
import type { Logger } from './logger.js';

/**
 * API keys found by hash, cached per instance under a lease on the key epoch
 * (db/key-epoch-schema.ts, epoch-lease-cache.ts): the content service's MCP keys and the commerce
 * API's keys, each service on its own epoch. What it keeps: once the request that revokes a key
 * has returned, no instance on the database accepts it (docs/security.md, "API keys across
 * instances").
 *
 * - KEY_LEASE_MS: how long one read of the epoch vouches for the cache. It bounds a revoke's wait
 *   for an instance that does not answer (stalled, cut off from the database).
 * - RENEW_EVERY_MS: how often the epoch is read; it bounds a revoke's wait for a live instance.
 * - HEARTBEAT_EVERY_MS: an instance rewrites its row this often (and before a renewal that can
 *   grant a lease, if its last heartbeat is older), so an instance that holds a lease has written
 *   its row less than HEARTBEAT_EVERY_MS before.
 * - SILENT_MS: a row whose heartbeat stamp has not changed for this long, on the monotonic clock of
 *   the instance that sweeps, is deleted (silent-instances.ts). The 55 s above the heartbeat
 *   period are for a slow heartbeat write.
 *
 * No clock is compared across processes: a revoke waits for every row that has not seen its epoch,
 * at most a lease plus a margin, whatever the rows' times say (twelfth pass: SQLite's database
 * time is the writing process's wall clock, and a clock that jumped over 60 s made a live
 * instance look silent, so the revoke returned without waiting for it).
 */
export const KEY_LEASE_MS = 2_000;
export const RENEW_EVERY_MS = 500;
export const HEARTBEAT_EVERY_MS = 5_000;
export const SILENT_MS = 60_000;
/**
 * How often a service sweeps silent instances' rows on its own beat (besides before each revoke):
 * a crashed instance's row goes within SILENT_MS plus this, so revokes stop waiting for it.
 */
export const SWEEP_EVERY_MS = SILENT_MS / 2;
/** How often a revoke asks which instances have not yet seen it. */
const ACK_POLL_MS = 20;
/** Keys cached per instance; an account or a workspace has a handful. */
const MAX_KEYS = 1_000;
/** A database that cannot be read is reported this often, not every renewal. */
const REPORT_EVERY_MS = 60_000;

/** What a cached key must carry: its id (to stamp) and the stamp (to throttle stamping). */
export interface CachedKey {
  id: string;
  last_used_at: string | null;
}

export type KeyCache<V extends CachedKey> = EpochLeaseCache<V>;

export function keyCache<V extends CachedKey>(
  keyEpoch: KeyEpochStore,
  deps: {
    instanceId: string;
    dialect: Dialect;
    logger: Logger;
    stopwatch: () => number;
    /** Which keys, for the warning when the epoch cannot be read ('MCP keys'). */
    what: string;
  },
): KeyCache<V> {
  let reported = Number.NEGATIVE_INFINITY;
  // This instance's heartbeats, counted: the count makes every stamp of its row a new one.
  let beats = 0;
  return new EpochLeaseCache<V>(
    {
      read: () => keyEpoch.read(),
      acknowledge: (epoch) => keyEpoch.acknowledge(deps.instanceId, epoch, deps.dialect, ++beats),
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
        deps.logger.warn(
          { err },
          `could not read the key epoch; ${deps.what} are looked up on every request`,
        );
      },
    },
  );
}

/**
 * The key when this instance's cache answers for it and its use needs no new stamp (stamped
 * within the minute): most calls of a busy key. Nothing to wait for, so no promise: the MCP
 * endpoint paid two async frames and their turns of the microtask queue a call for an answer it
 * already held (issue 20). Undefined otherwise; then `findCachedKey` answers. The lease is
 * checked by `cache.get` exactly as there, so a revoke holds the same way.
 */
export function cachedFreshKey<V extends CachedKey>(
  cache: KeyCache<V> | undefined,
  hash: string,
  now: Date,
): V | undefined {
  const found = cache?.get(hash);
  return found && !lastUsedIsStale(found.last_used_at, now) ? found : undefined;
}

/**
 * Looks a key up by its hash, from the cache while its lease is fresh, and stamps its use (to the
 * minute). `store.findActiveByHash` answers only usable keys (a store itself, or a view of one);
 * only keys found are cached, so a made-up key still costs a lookup (and finds nothing).
 */
export async function findCachedKey<V extends CachedKey>(
  cache: KeyCache<V> | undefined,
  hash: string,
  store: {
    findActiveByHash(hash: string): Promise<V | null | undefined>;
    touch(id: string, at: string): Promise<void>;
  },
  now: Date,
): Promise<V | null> {
  // One ticket, taken before anything is read, for both puts below: a ticket taken after the
  // lookup returned would postdate a drop of the cache that the lookup's answer predates (a revoke
  // committed while it was in flight), and the touch's put would cache a revoked key for good.
  const ticket = cache?.ticket() ?? 0;
  let found = cache?.get(hash);
  if (!found) {
    found = (await store.findActiveByHash(hash)) ?? undefined;
    if (!found) return null;
    cache?.put(hash, found, ticket);
  }
  if (!lastUsedIsStale(found.last_used_at, now)) return found;
  const at = now.toISOString();
  await store.touch(found.id, at);
  const touched = { ...found, last_used_at: at };
  cache?.put(hash, touched, ticket);
  return touched;
}

/** What a revoke waits with: this instance's key cache, if it serves keys, and who hears a wait. */
export interface RevokeWait {
  keyCache?: { invalidate(): void; renew(opts: { fresh: true }): Promise<void> };
  stopwatch?: () => number;
  /**
   * This instance's sweep of silent instances (silent-instances.ts), run before the wait: the
   * first revoke after a crashed instance has been silent SILENT_MS deletes its row instead of
   * waiting for it. A one-off process (the CLI) has none: it has seen no row for long.
   */
  sweepSilent?: () => Promise<unknown>;
  /** Hears instances that did not acknowledge the revoke in time (the app's logger, the CLI's stderr). */
  logger?: { warn(fields: { instances: string[]; keyId: string }, message: string): void };
}

/**
 * After a change to key `keyId` that moved the key epoch to `epoch` has committed: drops this
 * instance's cache, acknowledges the epoch, and waits until every other instance with a row has
 * too (or until their leases have run out). Rows of processes on this machine that no longer exist
 * are not waited for; rows of silent instances elsewhere are, until a sweep deletes them. Instances waited out are reported to `deps.logger`, and returned.
 */
export async function awaitKeyEpochSeen(
  keys: { keyEpoch: KeyEpochStore },
  deps: RevokeWait,
  epoch: number,
  keyId: string,
): Promise<string[]> {
  deps.keyCache?.invalidate();
  await deps.keyCache?.renew({ fresh: true });
  // The revoke has committed: a sweep that fails (the beat reports those) must not fail it.
  await deps.sweepSilent?.().catch(() => undefined);
  const waitedOut = await awaitAcknowledged({
    lagging: async () => (await keys.keyEpoch.lagging(epoch)).filter((instance) => !isGoneHere(instance)),
    leaseMs: KEY_LEASE_MS,
    pollMs: ACK_POLL_MS,
    ...(deps.stopwatch ? { monotonic: deps.stopwatch } : {}),
  });
  if (waitedOut.length)
    deps.logger?.warn(
      { instances: waitedOut, keyId },
      'instances did not acknowledge a key revoke; waited until their key caches expired',
    );
  return waitedOut;
}
