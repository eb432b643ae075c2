import { AppError } from '../../platform/errors.js';
import type { CommerceContext } from '../context.js';
import { commerceStores } from '../db/stores.js';
import type { MerchantStatus } from '../schemas/common.js';
import type { Merchant } from '../schemas/resources.js';

/** What one call to a store showed: it answered, it failed (network, 5xx), or it did not answer in time. */
export type StoreOutcome = 'ok' | 'failure' | 'timeout';

/** Consecutive failures or timeouts before a store is `degraded`, and before it is `down`. */
export const DEGRADED_AFTER = 1;
export const DOWN_AFTER = 3;
/** The first wait once a store is down; it doubles with each failed probe, up to the maximum. */
export const BACKOFF_BASE_MS = 30_000;
export const BACKOFF_MAX_MS = 15 * 60_000;

interface Health {
  failures: number;
  status: MerchantStatus;
  /** While down: no call reaches the store before this time (ms); the first one after it is the probe. */
  retryAt: number | null;
}

type HealthCtx = Pick<CommerceContext, 'db' | 'clock'>;

// Per service (its database), so two services in one process never share a store's health.
const byService = new WeakMap<object, Map<string, Health>>();

function healthOf(ctx: HealthCtx): Map<string, Health> {
  let map = byService.get(ctx.db);
  if (!map) {
    map = new Map();
    byService.set(ctx.db, map);
  }
  return map;
}

const backoffMs = (failures: number) =>
  Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, failures - DOWN_AFTER), BACKOFF_MAX_MS);

/**
 * Records one real observation of a store and returns its status: any answer makes it `healthy`;
 * each failure or timeout in a row counts, `degraded` from the first, `down` from the third, with
 * a backoff of 30 s that doubles per failed probe (15 min at most). The status is written to the
 * catalog (where `GET /v1/merchants` reads it) when it changes.
 */
export async function observe(
  ctx: HealthCtx,
  merchantId: string,
  outcome: StoreOutcome,
): Promise<MerchantStatus> {
  const map = healthOf(ctx);
  const known = map.get(merchantId);
  const before = known ?? { failures: 0, status: 'healthy', retryAt: null };
  const failures = outcome === 'ok' ? 0 : before.failures + 1;
  const status: MerchantStatus =
    failures >= DOWN_AFTER ? 'down' : failures >= DEGRADED_AFTER ? 'degraded' : 'healthy';
  const retryAt = status === 'down' ? ctx.clock.now().getTime() + backoffMs(failures) : null;
  map.set(merchantId, { failures, status, retryAt });
  // The first observation in this process writes too: the catalog may still say `down` from before a restart.
  if (!known || status !== before.status) {
    await commerceStores(ctx.db).catalog.setStatus(merchantId, status);
  }
  return status;
}

/** Retry-After for a store that just failed but is not `down` yet (and for a listed store marked down). */
export const RETRY_SOON_S = 5;

/**
 * The one answer for a store that is not answering: 503 MERCHANT_UNAVAILABLE with Retry-After,
 * whether this request's call failed or timed out, or the store is down and not asked until its
 * backoff has passed. `outcome` is what the call showed (what `withHealth` counts); the message
 * says what happened.
 */
export class StoreUnavailable extends AppError {
  constructor(
    /** `busy`: the store answered 429 (it is up, and asks us to slow down): not held against its health. */
    readonly outcome: Exclude<StoreOutcome, 'ok'> | 'busy',
    message: string,
    retryAfterSeconds = RETRY_SOON_S,
  ) {
    super(503, 'MERCHANT_UNAVAILABLE', message, { headers: { 'Retry-After': String(retryAfterSeconds) } });
  }
}

export const merchantUnavailable = (merchant: Merchant, retryAfterSeconds: number): AppError =>
  new StoreUnavailable(
    'failure',
    `${merchant.name} is not answering right now (several requests in a row failed). Try again in ${retryAfterSeconds} s.`,
    retryAfterSeconds,
  );

/**
 * Refuses a call to a store that is down until its backoff has passed; the first call after that
 * goes through as the probe, and calls arriving while it runs wait another backoff (one probe at a
 * time). A store the catalog lists as down with no observation in this process (after a restart)
 * is probed at once.
 */
export function checkHealth(ctx: HealthCtx, merchant: Merchant): void {
  const h = healthOf(ctx).get(merchant.id);
  if (h?.status !== 'down' || h.retryAt === null) return;
  const now = ctx.clock.now().getTime();
  const waitMs = h.retryAt - now;
  if (waitMs > 0) throw merchantUnavailable(merchant, Math.ceil(waitMs / 1000));
  // This call is the probe; its outcome, observed when it ends, sets the next state.
  h.retryAt = now + backoffMs(h.failures);
}

/** The error an adapter throws when a store failed or timed out; `withHealth` counts it. */
export const storeError = (outcome: Exclude<StoreOutcome, 'ok'> | 'busy', message: string): AppError =>
  new StoreUnavailable(outcome, message);

/**
 * How a store call ended: only its own failures count (no answer, a timeout, a 5xx); anything
 * else (a 4xx refusal, a 429, a refusal to guess) is the store's answer.
 */
export function outcomeOf(err: unknown): StoreOutcome {
  if (err instanceof StoreUnavailable) return err.outcome === 'busy' ? 'ok' : err.outcome;
  return err instanceof AppError ? 'ok' : 'failure';
}

/**
 * Runs one call to a store behind its health gate and records what it showed. A failure that
 * leaves the store `down` answers with the backoff as Retry-After. Never inside a transaction.
 */
export async function withHealth<T>(ctx: HealthCtx, merchant: Merchant, fn: () => Promise<T>): Promise<T> {
  checkHealth(ctx, merchant);
  let result: T;
  try {
    result = await fn();
  } catch (err) {
    const outcome = outcomeOf(err);
    const status = await observe(ctx, merchant.id, outcome);
    const retryAt = healthOf(ctx).get(merchant.id)?.retryAt;
    if (err instanceof StoreUnavailable && status === 'down' && retryAt) {
      const wait = Math.ceil((retryAt - ctx.clock.now().getTime()) / 1000);
      throw new StoreUnavailable(
        err.outcome,
        `${err.message} ${merchant.name} is now marked down; it is asked again in ${wait} s.`,
        wait,
      );
    }
    throw err;
  }
  await observe(ctx, merchant.id, 'ok');
  return result;
}
