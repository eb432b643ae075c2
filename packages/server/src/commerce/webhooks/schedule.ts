import { HOUR, MINUTE } from '../../platform/clock.js';

/** Delays before attempts 2..7: seven attempts over roughly a day and a half, as the spec says. */
export const RETRY_DELAYS_MS = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR, 24 * HOUR] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** ±10%, so endpoints that failed together do not all retry in the same second. */
export const JITTER = 0.1;

/** When to try again after `attempt` (1-based) failed, or null when that was the last attempt. */
export function nextAttemptAt(now: Date, attempt: number, random: () => number): Date | null {
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  const factor = 1 + (random() * 2 - 1) * JITTER;
  return new Date(now.getTime() + Math.round(base * factor));
}
