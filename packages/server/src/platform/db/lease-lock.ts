import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../errors.js';
import { leasesStore } from './leases-store.js';
import type { SqlDatabase } from './sql.js';

export interface LeaseLockOptions {
  /** This instance's name (`instanceName`); each call adds its own part, so calls exclude each other. */
  instance: string;
  /** How long the lease lasts if its holder dies: longer than `fn` can take. */
  ttlMs: number;
  /**
   * How long to wait for another holder before giving up with 503 LOCK_BUSY. Make it longer than
   * `ttlMs`, so a waiter outlasts a dead holder's lease and takes over instead of failing.
   */
  waitMs: number;
  /** What the 503 says is busy, e.g. "the token refresh of channel ch_1". */
  what: string;
}

/** How often a waiter looks again; short, as the work it waits for is a request's worth. */
const POLL_MS = 25;

/**
 * Runs `fn` while holding the named lease (platform/db/leases-store.ts), waiting for it while
 * another call holds it, on this instance or any other on the same database. This is the lock
 * for work that must not overlap across instances and cannot sit inside one transaction because
 * it calls the network or the file system (a token refresh, rendering an asset's crops). A holder
 * that dies keeps the lease only until `ttlMs` runs out.
 *
 * Waiting is by polling, not by a held database lock: no connection or transaction is tied up
 * while the holder talks to the network.
 */
export async function withLeaseLock<T>(
  db: SqlDatabase,
  name: string,
  opts: LeaseLockOptions,
  fn: () => Promise<T>,
): Promise<T> {
  const leases = leasesStore(db);
  const owner = `${opts.instance}/${randomUUID()}`;
  // The wait is timed on this process's monotonic clock: a wall clock that steps cannot cut it short.
  const deadline = performance.now() + opts.waitMs;
  for (;;) {
    if (await leases.take(name, owner, opts.ttlMs, db.dialect)) break;
    if (performance.now() >= deadline)
      throw new AppError(
        503,
        'LOCK_BUSY',
        `Waited ${Math.round(opts.waitMs / 1000)} s for ${opts.what}, which another request is still doing. Try again shortly.`,
        { headers: { 'Retry-After': '5' } },
      );
    await sleep(POLL_MS);
  }
  try {
    return await fn();
  } finally {
    await leases.release(name, owner);
  }
}
