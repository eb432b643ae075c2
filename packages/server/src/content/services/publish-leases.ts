import { isGoneHere } from '../../platform/instance.js';
import type { ContentContext } from '../context.js';
import type { PublishAttemptRow } from '../db/stores/publish-attempts-store.js';

/**
 * How long an instance vouches for a platform call it is making. It renews every third of it
 * while the call runs, so only an owner that died (or stopped renewing) lets it run out; then any
 * instance may make the attempt `unconfirmed` (recoverInterruptedPublishes).
 */
export const PUBLISH_LEASE_MS = 2 * 60_000;

/** Who owns a new attempt, and until when: on the real clock, never the sandbox one. */
export const attemptLease = (ctx: ContentContext) => ({
  owner: ctx.instanceId,
  lease_until: new Date(ctx.clock.realNow().getTime() + PUBLISH_LEASE_MS).toISOString(),
});

/**
 * Renews the attempt's lease while its platform call runs; call the returned function when the
 * call is over. A failed renewal is only logged: the next one tries again, and the worst case is
 * an attempt another instance makes `unconfirmed`, which asks the person and never resends.
 */
export function keepAttemptAlive(ctx: ContentContext, attemptId: string): () => void {
  const timer = setInterval(() => {
    const { owner, lease_until } = attemptLease(ctx);
    ctx.stores.publishAttempts
      .renew(attemptId, owner, lease_until)
      .catch((err: unknown) => ctx.logger.warn({ err, attemptId }, 'could not renew a publish attempt'));
  }, PUBLISH_LEASE_MS / 3);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * An attempt without an outcome whose owner no longer vouches for it: no owner (from before
 * owners were recorded), a lease run out, or an owner that is a dead process on this machine (a
 * restart after a crash recovers at once). A live instance's attempt in flight is never abandoned.
 */
export const isAbandoned = (ctx: ContentContext, a: PublishAttemptRow) =>
  a.owner === null ||
  a.lease_until === null ||
  a.lease_until <= ctx.clock.realNow().toISOString() ||
  isGoneHere(a.owner);
