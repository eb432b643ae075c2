import { setTimeout as sleep } from 'node:timers/promises';

/** Time is injected so tests can move it without sleeping and domain code stays deterministic. */
export interface Clock {
  now(): Date;
  /**
   * Resolves once `ms` of this clock's time have passed: how code that must wait on an outside
   * party (X processing a GIF) waits without a timer the tests cannot move. Optional so that an
   * embedder's own clock still fits; without it, waits use a real timer. `signal` ends the wait
   * early, rejecting with its reason (the service stopping), so a stop never waits out a timer.
   */
  wait?(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => new Date(),
  wait: (ms, signal) => sleep(ms, undefined, signal ? { signal } : {}),
};

/** A clock that only moves when told to. Used by tests and by the content service's sandbox clock. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date | string | number = Date.UTC(2026, 0, 5, 9, 0, 0)) {
    this.#ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  advance(ms: number): Date {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('A clock only moves forward.');
    this.#ms += ms;
    return this.now();
  }

  /**
   * Moves the clock by `ms`, then resolves on the next turn of the loop: a wait that takes no real
   * time, so there is nothing for `signal` to cut short.
   */
  wait(ms: number, _signal?: AbortSignal): Promise<void> {
    this.advance(ms);
    return new Promise((resolve) => setImmediate(resolve));
  }

  set(to: Date | string | number): Date {
    this.#ms = new Date(to).getTime();
    return this.now();
  }
}

export const iso = (d: Date) => d.toISOString();
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
