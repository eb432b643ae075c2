import type { ContentContext } from '../context.js';

/** The window of the per-key limit; the number of calls in it is SERVICE_KEY_RATE_LIMIT. */
export const RATE_WINDOW_SECONDS = 60;

/** The most calls one instance reserves for a key at once, whatever the limit. */
export const MAX_LEASE = 1000;

/**
 * How many calls an instance may reserve for a key in one statement: a twentieth of the limit,
 * so calls reserved by one instance and not (yet) made there hold back at most 5 % of the
 * limit from the others. At the default 120 a minute that is 6; at 19 or less it is 1, which
 * is exactly the old one-statement-per-call count.
 */
export const leaseCap = (limit: number) => Math.min(MAX_LEASE, Math.max(1, Math.floor(limit / 20)));

export type RateDecision =
  | { ok: true }
  | { ok: false; limit: number; windowSeconds: number; retryAfterSeconds: number };

/** What this instance holds of one key's current window. */
interface KeyLease {
  windowStart: number;
  /** Calls reserved in the database and not yet made here. */
  left: number;
  /** How many to reserve next: 1 for a window's first call, doubling up to the cap. */
  next: number;
  /** The database has handed out the whole limit for this window: nothing more can be granted. */
  exhausted: boolean;
  /** The reservation in flight, which concurrent calls wait for instead of sending their own. */
  reserving: Promise<void> | null;
}

/** Past this many keys, leases of windows that are over are dropped. */
const SWEEP_AT = 256;

const leasesByApp = new WeakMap<ContentContext, Map<string, KeyLease>>();

function leaseFor(ctx: ContentContext, keyId: string, windowStart: number): KeyLease {
  let leases = leasesByApp.get(ctx);
  if (!leases) {
    leases = new Map();
    leasesByApp.set(ctx, leases);
  }
  const held = leases.get(keyId);
  if (held?.windowStart === windowStart) return held;
  if (leases.size >= SWEEP_AT)
    for (const [id, lease] of leases) if (lease.windowStart !== windowStart) leases.delete(id);
  // A new window (or a clock set back): what was reserved in another window does not count here.
  const lease: KeyLease = { windowStart, left: 0, next: 1, exhausted: false, reserving: null };
  leases.set(keyId, lease);
  return lease;
}

async function reserve(ctx: ContentContext, keyId: string, lease: KeyLease, limit: number) {
  const asked = lease.next;
  const row = await ctx.stores.rateLimits.reserve(
    keyId,
    new Date(lease.windowStart).toISOString(),
    asked,
    // Another instance's clock may be in the next window; one further ahead was wrong.
    new Date(lease.windowStart + RATE_WINDOW_SECONDS * 1000).toISOString(),
  );
  // The count went up by `asked` in one statement; what was there before is every instance's
  // earlier reservations, so only what is left under the limit is ours.
  const granted = Math.max(0, Math.min(asked, limit - (row.count - asked)));
  lease.left += granted;
  lease.exhausted = row.count >= limit;
  lease.next = Math.min(leaseCap(limit), asked * 2);
}

/**
 * One call by an API key, counted against its limit: a fixed window of RATE_WINDOW_SECONDS
 * aligned to the clock, counted in the database so instances share it. An instance reserves
 * calls in blocks (a quota lease: one atomic upsert adds the block to the window's count and
 * grants only what is left under the limit), then serves calls from the block without a
 * statement each. The database's count is the sum of every instance's reservations, so the
 * calls admitted across instances never exceed the limit; a single instance admits exactly
 * `limit` a window, as when every call was one statement. What a second instance sees: it may
 * be refused while another still holds up to `leaseCap(limit) - 1` reserved calls it has not made.
 *
 * Once the database has granted the whole limit, a refused call is answered here without a
 * statement (the old code counted it in the database too): in a fixed window the count never
 * goes down, so the answer is the same until the window ends, and a key hammering its refusal
 * no longer costs a database write per call.
 */
export async function takeKeyCall(ctx: ContentContext, keyId: string): Promise<RateDecision> {
  return takeLeasedCall(ctx, keyId) ?? reserveAndTake(ctx, keyId);
}

/** The one answer every admitted call gets: shared, not an object per call. */
const ADMITTED: RateDecision = Object.freeze({ ok: true });

const windowMs = RATE_WINDOW_SECONDS * 1000;

/**
 * `takeKeyCall` for the common case, without a promise: a call served from what this instance
 * already reserved for the key's current window. Null when that is used up (or the window is
 * new): then only `takeKeyCall` can answer, with a statement. The MCP server asks this first, so
 * a call within its lease pays no `await` for its count.
 */
export function takeLeasedCall(ctx: ContentContext, keyId: string): RateDecision | null {
  // Real time, not the sandbox clock: a key's minute is a real-world allowance, and an advance
  // of the sandbox clock (a testing tool) must not hand a key a fresh window.
  const now = ctx.clock.realNow().getTime();
  const lease = leaseFor(ctx, keyId, Math.floor(now / windowMs) * windowMs);
  if (lease.left <= 0) return null;
  lease.left -= 1;
  return ADMITTED;
}

async function reserveAndTake(ctx: ContentContext, keyId: string): Promise<RateDecision> {
  const limit = ctx.config.keyRateLimit;
  const now = ctx.clock.realNow().getTime();
  const windowStart = Math.floor(now / windowMs) * windowMs;
  for (;;) {
    const lease = leaseFor(ctx, keyId, windowStart);
    if (lease.left > 0) {
      lease.left -= 1;
      return ADMITTED;
    }
    if (lease.exhausted)
      return {
        ok: false,
        limit,
        windowSeconds: RATE_WINDOW_SECONDS,
        retryAfterSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)),
      };
    if (!lease.reserving)
      lease.reserving = reserve(ctx, keyId, lease, limit).finally(() => {
        lease.reserving = null;
      });
    // Another call may take what this reservation granted first; then this one asks again.
    await lease.reserving;
  }
}

/** The words every refusal uses, over MCP and anywhere else a key is limited. */
export const rateLimitMessage = (d: Extract<RateDecision, { ok: false }>, prefix: string) =>
  `This key (${prefix}…) has made its ${d.limit} calls for this minute, the per-key limit (SERVICE_KEY_RATE_LIMIT, ${d.limit} per ${d.windowSeconds} s). Try again in ${d.retryAfterSeconds} s.`;
