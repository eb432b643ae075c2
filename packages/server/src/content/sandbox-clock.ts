import type { Clock } from '../platform/clock.js';
import type { SqlDatabase, SqlExecutor } from '../platform/db/sql.js';
import {
  addSandboxOffset,
  currentSandboxOffset,
  readSandboxOffset,
} from './db/stores/sandbox-clock-store.js';

/**
 * The clock the content service runs on: the base clock plus a persisted offset. Advancing it
 * in sandbox mode makes scheduled posts come due and metrics grow without waiting; the offset
 * survives restarts so the demo's timeline stays coherent. It lives in the database, shared by
 * every instance: this object only remembers the last value it read, and `sync` (before each
 * request that may read the time, and each background pass) picks up an advance made on another
 * instance.
 */
export class SandboxClock implements Clock {
  readonly #base: Clock;
  #offsetMs: number;

  private constructor(base: Clock, offsetMs: number) {
    this.#base = base;
    this.#offsetMs = offsetMs;
  }

  static async load(db: SqlDatabase, base: Clock): Promise<SandboxClock> {
    return new SandboxClock(base, await readSandboxOffset(db));
  }

  /**
   * A clock that throws when read, for handlers that skip the per-request `sync` because they
   * never need the time (app.ts). Should one start to, it fails loudly in every test that calls
   * it, instead of answering with an offset another instance may have moved.
   */
  static unsynced(why: string): SandboxClock {
    const refuse = (): never => {
      throw new Error(`${why} It must not read the sandbox clock: sync it first (content/app.ts).`);
    };
    return new SandboxClock({ now: refuse }, Number.NaN);
  }

  now(): Date {
    return new Date(this.#base.now().getTime() + this.#offsetMs);
  }

  /**
   * The base clock without the sandbox offset. Leases and claims run on it: an advance of the
   * sandbox clock must not make another instance's claim look expired.
   */
  realNow(): Date {
    return this.#base.now();
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** Re-reads the shared offset. */
  async sync(db: SqlExecutor): Promise<void> {
    this.#offsetMs = await currentSandboxOffset(db);
  }

  async advance(db: SqlDatabase, ms: number): Promise<Date> {
    this.#offsetMs = await addSandboxOffset(db, ms);
    return this.now();
  }
}
