import { setTimeout as sleep } from 'node:timers/promises';
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
  /** Set on an unsynced clock: why `now` must not be read. */
  readonly #refusal: string | null;

  private constructor(base: Clock, offsetMs: number, refusal: string | null = null) {
    this.#base = base;
    this.#offsetMs = offsetMs;
    this.#refusal = refusal;
  }

  static async load(db: SqlDatabase, base: Clock): Promise<SandboxClock> {
    return new SandboxClock(base, await readSandboxOffset(db));
  }

  /**
   * This clock, for handlers that skip the per-request `sync` because they never need the
   * sandbox time (routes and MCP tools declared `readsTime: false`): `now` throws, so should one
   * start to read it, it fails loudly in every test that calls it instead of answering with an
   * offset another instance may have moved. `realNow` still answers: it needs no sync.
   */
  unsynced(why: string): SandboxClock {
    return new SandboxClock(this.#base, Number.NaN, why);
  }

  now(): Date {
    if (this.#refusal !== null)
      throw new Error(
        `${this.#refusal} It must not read the sandbox clock: declare it without \`readsTime: false\` so it is synced first.`,
      );
    return new Date(this.#base.now().getTime() + this.#offsetMs);
  }

  /**
   * The base clock without the sandbox offset. Leases and claims run on it: an advance of the
   * sandbox clock must not make another instance's claim look expired. So do the real-world
   * records of API keys (last used, the per-minute rate limit, the MCP call log): a sandbox clock
   * is for testing schedules, and an advance must neither refill a key's minute nor date an
   * agent's call in the future. Reading it needs no `sync`.
   */
  realNow(): Date {
    return this.#base.now();
  }

  /**
   * Waits `ms` of the base clock's time (a ManualClock in tests moves at once). A wait on an outside
   * party is real time, so the sandbox offset plays no part.
   */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return this.#base.wait ? this.#base.wait(ms, signal) : sleep(ms, undefined, signal ? { signal } : {});
  }

  /** The base clock itself, for code that takes a `Clock` and must run on real time. */
  get real(): Clock {
    return this.#base;
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
