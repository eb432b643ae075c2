/** Time is injected so tests can move it without sleeping and domain code stays deterministic. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

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

  set(to: Date | string | number): Date {
    this.#ms = new Date(to).getTime();
    return this.now();
  }
}

export const iso = (d: Date) => d.toISOString();
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
