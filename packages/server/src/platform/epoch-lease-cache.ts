/**
 * A cache of lookups that another instance may withdraw (a credential revoked through another
 * process on the same database), trusted only while a lease on a shared epoch is fresh.
 *
 * The database holds an epoch that moves, in the same transaction, with every change that may
 * withdraw a cached answer, and a row per instance saying which epoch that instance has seen.
 * Here:
 *
 * - `renew()` (every `renewEveryMs`, in the background) reads the epoch. When it moved, the whole
 *   cache is dropped, then the new epoch is acknowledged in the instance's row. Only then is the
 *   lease extended, to `leaseMs` after the moment the read was SENT (monotonic clock): a read sent
 *   before a change was committed can only vouch for the time before it.
 * - `get()` answers only while the lease is fresh. A renewal that fails (database down) or does not
 *   come (event loop stalled) lets the lease run out, and every lookup goes to the database again.
 * - The instance's row is written (a heartbeat) before a read that can grant a lease, so a writer
 *   that commits a change and then lists the instances that have not seen it cannot miss one that
 *   holds a lease on the old epoch. If the heartbeat cannot be written, no lease is granted.
 * - `put()` takes the ticket read before the lookup was sent: a lookup that raced a drop of the
 *   cache (its answer may predate the change) is not cached.
 *
 * The writer's side (`awaitAcknowledged`): after committing, wait until every live instance has
 * acknowledged the new epoch, or until `leaseMs` (plus a margin) has passed, by when any instance
 * that did not has stopped trusting its cache. So once the write has returned, no instance answers
 * from a cache that predates it.
 *
 * Generic on purpose: the content API's keys use it (content/services/api-keys.ts); the commerce
 * API's keys could adopt it with an epoch of their own.
 */
export interface EpochSource {
  /** The shared epoch now: one cheap read. */
  read(): Promise<number>;
  /** Records that this instance has seen `epoch` (-1: none yet) and is alive (the heartbeat). */
  acknowledge(epoch: number): Promise<void>;
}

export interface EpochLeaseOptions {
  /** How long a renewal vouches for the cache, from when its read was sent. */
  leaseMs: number;
  renewEveryMs: number;
  /** How often the instance's row is rewritten even when the epoch did not move. */
  heartbeatEveryMs: number;
  /** Past this many entries the cache starts again empty (only answers that exist are cached). */
  maxEntries: number;
  /** Monotonic milliseconds (performance.now by default); never the wall clock. */
  monotonic?: () => number;
  /** Hears a failed renewal (the cache is not trusted until one succeeds). */
  onRenewalFailed?: (err: unknown) => void;
}

/** How long past the lease a writer waits for an instance that did not acknowledge: clock drift. */
export const LEASE_MARGIN_MS = 250;

export class EpochLeaseCache<V> {
  readonly #source: EpochSource;
  readonly #opts: EpochLeaseOptions;
  readonly #monotonic: () => number;
  #entries = new Map<string, V>();
  /** Moves whenever the cache is dropped; tickets from before a drop no longer fill it. */
  #generation = 0;
  /** The epoch the entries belong to; -1 before the first read. */
  #epoch = -1;
  #leaseUntil = 0;
  #lastBeat = Number.NEGATIVE_INFINITY;
  #renewing: Promise<void> | null = null;
  #timer: NodeJS.Timeout | null = null;
  /** Renewals made (each is one read of the epoch), for tests and benchmarks. */
  renewals = 0;

  constructor(source: EpochSource, opts: EpochLeaseOptions) {
    this.#source = source;
    this.#opts = opts;
    this.#monotonic = opts.monotonic ?? (() => performance.now());
  }

  /** Whether a cached answer may be used now. */
  get trusted(): boolean {
    return this.#monotonic() < this.#leaseUntil;
  }

  /** The cached answer, only while the lease is fresh. */
  get(key: string): V | undefined {
    if (this.#entries.size === 0 || !this.trusted) return undefined;
    return this.#entries.get(key);
  }

  /** Take before sending the lookup whose answer goes to `put`. */
  ticket(): number {
    return this.#generation;
  }

  /** Caches an answer unless the cache was dropped since `ticket` was taken. */
  put(key: string, value: V, ticket: number): void {
    if (ticket !== this.#generation) return;
    if (this.#entries.size >= this.#opts.maxEntries) this.#entries.clear();
    this.#entries.set(key, value);
  }

  /** Drops every entry at once (a writer on this instance, before it waits for the others). */
  invalidate(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /**
   * One renewal; concurrent callers share it. `fresh` waits for the one in flight (its read may
   * have been sent before the caller's change) and then makes another.
   */
  renew(opts: { fresh?: boolean } = {}): Promise<void> {
    if (this.#renewing && !opts.fresh) return this.#renewing;
    // Started in this frame when none is in flight, so its read is sent (and timed) now.
    const next = this.#renewing ? this.#renewing.then(() => this.#renewOnce()) : this.#renewOnce();
    this.#renewing = next;
    void next.finally(() => {
      if (this.#renewing === next) this.#renewing = null;
    });
    return next;
  }

  async #renewOnce(): Promise<void> {
    this.renewals++;
    try {
      if (this.#monotonic() - this.#lastBeat >= this.#opts.heartbeatEveryMs) {
        const sent = this.#monotonic();
        await this.#source.acknowledge(this.#epoch);
        this.#lastBeat = sent;
      }
      const sent = this.#monotonic();
      const epoch = await this.#source.read();
      if (epoch !== this.#epoch) {
        this.#leaseUntil = 0;
        this.invalidate();
        this.#epoch = epoch;
        await this.#source.acknowledge(epoch);
        this.#lastBeat = sent;
      }
      this.#leaseUntil = sent + this.#opts.leaseMs;
    } catch (err) {
      this.#leaseUntil = 0;
      this.#opts.onRenewalFailed?.(err);
    }
  }

  /** Renews now and every `renewEveryMs` until `stop`. */
  start(): void {
    if (this.#timer) return;
    void this.renew();
    this.#timer = setInterval(() => void this.renew(), this.#opts.renewEveryMs);
    this.#timer.unref();
  }

  /** Stops renewing and stops trusting the cache; settles once no renewal is in flight. */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#leaseUntil = 0;
    await this.#renewing?.catch(() => undefined);
    this.#leaseUntil = 0;
  }
}

/**
 * The writer's wait, after the change has committed: until `lagging()` (the live instances that
 * have not acknowledged the change's epoch) is empty, or `leaseMs + LEASE_MARGIN_MS` from now, by
 * when every lease granted before the change has run out. Returns the instances waited out.
 */
export async function awaitAcknowledged(opts: {
  lagging: () => Promise<string[]>;
  leaseMs: number;
  pollMs: number;
  monotonic?: () => number;
}): Promise<string[]> {
  const monotonic = opts.monotonic ?? (() => performance.now());
  const deadline = monotonic() + opts.leaseMs + LEASE_MARGIN_MS;
  for (;;) {
    // Unable to ask (the database went away after the commit): every lease is waited out instead.
    const behind = await opts.lagging().catch(() => ['(could not list the instances)']);
    if (behind.length === 0 || monotonic() >= deadline) return behind;
    await new Promise((resolve) => setTimeout(resolve, Math.min(opts.pollMs, deadline - monotonic())));
  }
}
