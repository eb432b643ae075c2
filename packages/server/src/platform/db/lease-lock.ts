import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../errors.js';
import { type LeasesStore, leasesStore } from './leases-store.js';
import type { SqlDatabase } from './sql.js';

/**
 * What `fn` holds while it runs under withLeaseLock. A holder can stall past its lease (a GC
 * pause, SIGSTOP, a slow disk or platform) and another instance then takes the lease and does the
 * same work: so the lease is renewed while `fn` runs, and the result is written behind a fence.
 */
export interface HeldLease {
  /**
   * Aborted (with the LOCK_LOST error) once a renewal finds another holder has the lease: work
   * that can stop safely stops there. Its result would be refused by `fence` anyway.
   */
  readonly signal: AbortSignal;
  /**
   * Call first inside the transaction that writes the work's result, with that transaction's
   * leases store: it extends the lease while this holder still holds it and throws 503 LOCK_LOST
   * (rolling the transaction back) once another holder took it, so a stale holder never writes
   * over the newer holder's result.
   */
  fence(leases: LeasesStore): Promise<void>;
}

export interface LeaseLockOptions {
  /** This instance's name (`instanceName`); each call adds its own part, so calls exclude each other. */
  instance: string;
  /**
   * How long the lease lasts if its holder dies or stalls; a live holder renews it every third of
   * this while `fn` runs. Make it longer than `fn` usually takes, and far longer than a stall.
   */
  ttlMs: number;
  /**
   * How long to wait for another holder before giving up with 503 LOCK_BUSY. Make it longer than
   * `ttlMs`, so a waiter outlasts a dead holder's lease and takes over instead of failing.
   */
  waitMs: number;
  /** What the 503 says is busy, e.g. "the token refresh of channel ch_1". */
  what: string;
  /**
   * Ends the wait for another holder once aborted (the service is stopping): LOCK_BUSY at once,
   * `fn` never runs. A stop would otherwise wait out the whole `waitMs` for work this instance
   * has not begun and that another can pick up.
   */
  signal?: AbortSignal;
}

/**
 * Why lease-guarded work did not run, or ran and saved nothing: LOCK_BUSY or LOCK_LOST. Nothing
 * of it was done here, so trying again is safe. `why` is the message without the HTTP caller's
 * advice, for a caller that schedules its own retry (a post's publish).
 */
export class LeaseUnavailable extends AppError {
  readonly why: string;
  constructor(code: 'LOCK_BUSY' | 'LOCK_LOST', why: string) {
    super(503, code, `${why} Try again shortly.`, { headers: { 'Retry-After': '5' } });
    this.why = why;
  }
}

/** How often a waiter looks again; short, as the work it waits for is a request's worth. */
const POLL_MS = 25;

/**
 * The holder renews this many times per lease length: a renewal that comes late, or one the
 * database misses, still leaves the lease two-thirds of its length before anyone may take it.
 */
const RENEWALS_PER_LEASE = 3;

/** What a holder that lost its lease (stalled past it while another took over) throws instead of writing. */
export const lockLost = (what: string, ttlMs: number) =>
  new LeaseUnavailable(
    'LOCK_LOST',
    `Stopped ${what}: this request stalled past its ${Math.round(ttlMs / 1000)} s lease and another request took the work over, so nothing of it was saved.`,
  );

/**
 * Runs `fn` while holding the named lease (platform/db/leases-store.ts), waiting for it while
 * another call holds it, on this instance or any other on the same database. This is the lock
 * for work that must not overlap across instances and cannot sit inside one transaction because
 * it calls the network or the file system (a token refresh, rendering an asset's crops). A holder
 * that dies keeps the lease only until `ttlMs` runs out.
 *
 * Waiting is by polling, not by a held database lock: no connection or transaction is tied up
 * while the holder talks to the network.
 *
 * While `fn` runs the lease is renewed every third of `ttlMs`, so a slow but live holder keeps it;
 * `fn` writes its result behind `lease.fence` (HeldLease), so a holder that stalled past its lease
 * while another took over cannot write over the newer result.
 */
export async function withLeaseLock<T>(
  db: SqlDatabase,
  name: string,
  opts: LeaseLockOptions,
  fn: (lease: HeldLease) => Promise<T>,
): Promise<T> {
  const leases = leasesStore(db);
  const owner = `${opts.instance}/${randomUUID()}`;
  // The wait is timed on this process's monotonic clock: a wall clock that steps cannot cut it short.
  const deadline = performance.now() + opts.waitMs;
  for (;;) {
    if (await leases.take(name, owner, opts.ttlMs, db.dialect)) break;
    if (opts.signal?.aborted)
      throw new LeaseUnavailable(
        'LOCK_BUSY',
        `Stopped waiting for ${opts.what}, which another request is still doing: this instance is stopping.`,
      );
    if (performance.now() >= deadline)
      throw new LeaseUnavailable(
        'LOCK_BUSY',
        `Waited ${Math.round(opts.waitMs / 1000)} s for ${opts.what}, which another request is still doing.`,
      );
    // Looked at again within one poll of the stop: short enough that no abort listener is needed.
    await sleep(POLL_MS);
  }
  const lost = new AbortController();
  const keep = (store: LeasesStore) => store.keep(name, owner, opts.ttlMs, db.dialect);
  const heartbeat = setInterval(() => {
    keep(leases).then(
      (held) => {
        if (!held) lost.abort(lockLost(opts.what, opts.ttlMs));
      },
      // The database did not answer: the next beat tries again, and the fence decides at the write.
      () => undefined,
    );
  }, opts.ttlMs / RENEWALS_PER_LEASE);
  heartbeat.unref();
  const lease: HeldLease = {
    signal: lost.signal,
    fence: async (store) => {
      if (await keep(store)) return;
      const err = lockLost(opts.what, opts.ttlMs);
      lost.abort(err);
      throw err;
    },
  };
  try {
    return await fn(lease);
  } finally {
    clearInterval(heartbeat);
    // Deletes only this holder's row: a lease another took over stays theirs.
    await leases.release(name, owner);
  }
}
