import { PollTimeoutError } from './errors.js';
import type { Sleep } from './options.js';
import { abortError, sleep as defaultSleep, raceAbort } from './retry.js';

export interface PollOptions<T> {
  /** Reads the current value. Pass `signal` on to the request so an abort cancels it too. */
  get: (signal: AbortSignal | undefined) => Promise<T>;
  /** Done when this returns true; `poll` resolves with that value. */
  until: (value: T) => boolean;
  /**
   * What counts as a change for `onUpdate`, e.g. `(c) => c.status`. Compared with
   * Object.is. Defaults to the value itself, which for fresh objects means every read.
   */
  key?: (value: T) => unknown;
  /** Called with the first value and then whenever `key` changes. Awaited, so updates stay in order. */
  onUpdate?: (value: T) => void | Promise<void>;
  /** Total time allowed. Default 300 000 (5 min). An in-flight read is bounded by its own request timeout. */
  timeoutMs?: number;
  /** First wait between reads. Default 500. */
  intervalMs?: number;
  /** Waits grow by 1.5x up to this. Default 5 000. */
  maxIntervalMs?: number;
  signal?: AbortSignal;
  /** Message for the PollTimeoutError, given the last value seen. */
  timeoutMessage?: (lastValue: T | undefined, timeoutMs: number) => string;
  /** Test hooks. */
  sleep?: Sleep;
  now?: () => number;
}

export const DEFAULT_POLL_TIMEOUT_MS = 300_000;
export const DEFAULT_POLL_INTERVAL_MS = 500;
export const DEFAULT_POLL_MAX_INTERVAL_MS = 5_000;
const GROWTH = 1.5;

/**
 * Reads `get` until `until` holds. Waits start short, because most waits end quickly,
 * and grow, so that long waits don't hammer the server. Rejects with APIUserAbortError
 * on abort and with PollTimeoutError (carrying `lastValue`) when time runs out.
 */
export async function poll<T>(options: PollOptions<T>): Promise<T> {
  const {
    get,
    until,
    key = (value: T) => value,
    onUpdate,
    timeoutMs = DEFAULT_POLL_TIMEOUT_MS,
    maxIntervalMs = DEFAULT_POLL_MAX_INTERVAL_MS,
    signal,
    sleep = defaultSleep,
    now = Date.now,
  } = options;
  let interval = options.intervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const deadline = now() + timeoutMs;
  const onAbort = () => abortError(signal as AbortSignal);

  let seen = false;
  let lastKey: unknown;
  let lastValue: T | undefined;

  for (;;) {
    if (signal?.aborted) throw onAbort();
    const value = await raceAbort(get(signal), signal, onAbort);
    lastValue = value;
    const currentKey = key(value);
    if (!seen || !Object.is(currentKey, lastKey)) {
      seen = true;
      lastKey = currentKey;
      await onUpdate?.(value);
    }
    if (until(value)) return value;

    const remaining = deadline - now();
    if (remaining <= 0) {
      const message =
        options.timeoutMessage?.(lastValue, timeoutMs) ??
        `Condition not met within ${timeoutMs} ms; the last value read is on error.lastValue.`;
      throw new PollTimeoutError<T>(message, lastValue);
    }
    // Sleep no longer than the time left, so the last read happens right at the deadline.
    await raceAbort(sleep(Math.min(interval, remaining), signal), signal, onAbort);
    interval = Math.min(interval * GROWTH, maxIntervalMs);
  }
}
