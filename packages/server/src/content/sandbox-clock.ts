import type { Clock } from '../platform/clock.js';
import type { SqlDatabase } from '../platform/db/sqlite.js';
import { readSandboxOffset, writeSandboxOffset } from './db/stores/sandbox-clock-store.js';

/**
 * The clock the content service runs on: the base clock plus a persisted offset. Advancing it
 * in sandbox mode makes scheduled posts come due and metrics grow without waiting; the offset
 * survives restarts so the demo's timeline stays coherent.
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

  now(): Date {
    return new Date(this.#base.now().getTime() + this.#offsetMs);
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  async advance(db: SqlDatabase, ms: number): Promise<Date> {
    const next = this.#offsetMs + ms;
    await writeSandboxOffset(db, next);
    this.#offsetMs = next;
    return this.now();
  }
}
