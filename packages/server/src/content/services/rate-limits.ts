import type { ContentContext } from '../context.js';

/** The window of the per-key limit; the number of calls in it is SERVICE_KEY_RATE_LIMIT. */
export const RATE_WINDOW_SECONDS = 60;

export type RateDecision =
  | { ok: true; remaining: number }
  | { ok: false; limit: number; windowSeconds: number; retryAfterSeconds: number };

/**
 * One call by an API key, counted against its limit: a fixed window of RATE_WINDOW_SECONDS
 * aligned to the clock, counted in the database (one statement), so instances share it. Every
 * call counts, refused ones included, so hammering a refused key does not earn it anything.
 */
export async function takeKeyCall(ctx: ContentContext, keyId: string): Promise<RateDecision> {
  const limit = ctx.config.keyRateLimit;
  const windowMs = RATE_WINDOW_SECONDS * 1000;
  const now = ctx.clock.now().getTime();
  const start = Math.floor(now / windowMs) * windowMs;
  const row = await ctx.stores.rateLimits.hit(keyId, new Date(start).toISOString());
  if (row.count <= limit) return { ok: true, remaining: limit - row.count };
  return {
    ok: false,
    limit,
    windowSeconds: RATE_WINDOW_SECONDS,
    retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)),
  };
}

/** The words every refusal uses, over MCP and anywhere else a key is limited. */
export const rateLimitMessage = (d: Extract<RateDecision, { ok: false }>, prefix: string) =>
  `This key (${prefix}…) has made its ${d.limit} calls for this minute, the per-key limit (SERVICE_KEY_RATE_LIMIT, ${d.limit} per ${d.windowSeconds} s). Try again in ${d.retryAfterSeconds} s.`;
