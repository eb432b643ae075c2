import type { Clock } from '../../platform/clock.js';
import type { SqlDatabase } from '../../platform/db/sqlite.js';
import type { Logger } from '../../platform/logger.js';
import { commerceStores } from '../db/stores.js';
import type { DueDelivery } from '../db/webhooks-store.js';
import { nextAttemptAt } from './schedule.js';
import { type SendOptions, sendSigned } from './sender.js';

export interface DispatcherOptions extends SendOptions {
  db: SqlDatabase;
  clock: Clock;
  logger: Logger;
  /** Jitter source; injected so domain code never calls Math.random itself. */
  random: () => number;
  pollMs?: number;
  batchSize?: number;
}

export interface RunSummary {
  attempted: number;
  succeeded: number;
  failed: number;
}

export interface Dispatcher {
  /** Sends every delivery that is due now; tests call this after moving the clock. */
  runDue(): Promise<RunSummary>;
  /** Sends these deliveries now if they are pending (dashboard "Send test" and "Resend"). */
  deliverNow(ids: string[]): Promise<RunSummary>;
  /** Asks the background loop to run soon: an event was just written. */
  nudge(): void;
  start(): void;
  stop(): Promise<void>;
}

/** A claimed delivery stays with its sender this long; a crash mid-send frees it afterwards. */
const LEASE_MS = 60_000;

export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const pollMs = opts.pollMs ?? 1_000;
  const batchSize = opts.batchSize ?? 20;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> | null = null;
  let again = false;

  async function attempt(d: DueDelivery): Promise<boolean> {
    const body = JSON.stringify({
      id: d.event_id,
      type: d.event_type,
      created_at: d.event_created_at,
      data: d.event_data,
    });
    const started = opts.clock.now();
    const outcome = await sendSigned(d.url, d.secret, body, started, opts);
    const number = d.attempts + 1;
    const retryAt = outcome.ok ? null : nextAttemptAt(opts.clock.now(), number, opts.random);
    await opts.db.transaction((tx) =>
      commerceStores(tx).webhooks.recordAttempt({
        delivery_id: d.id,
        attempt: number,
        started_at: started.toISOString(),
        status_code: outcome.status,
        error: outcome.error,
        next_attempt_at: retryAt?.toISOString() ?? null,
        status: outcome.ok ? 'succeeded' : retryAt ? 'pending' : 'failed',
        at: opts.clock.now().toISOString(),
      }),
    );
    if (!outcome.ok) {
      opts.logger.warn(
        { delivery: d.id, event: d.event_id, attempt: number, status: outcome.status, error: outcome.error },
        retryAt ? 'webhook delivery failed; will retry' : 'webhook delivery failed for the last time',
      );
    }
    return outcome.ok;
  }

  async function sendBatch(ids?: string[]): Promise<RunSummary> {
    const summary: RunSummary = { attempted: 0, succeeded: 0, failed: 0 };
    for (let round = 0; round < 50; round++) {
      const now = opts.clock.now();
      const due = await opts.db.transaction((tx) =>
        commerceStores(tx).webhooks.claimDue(
          now.toISOString(),
          new Date(now.getTime() + LEASE_MS).toISOString(),
          batchSize,
          ids,
        ),
      );
      if (due.length === 0) break;
      const results = await Promise.all(due.map(attempt));
      summary.attempted += results.length;
      summary.succeeded += results.filter(Boolean).length;
      summary.failed += results.filter((ok) => !ok).length;
      if (ids) break;
    }
    return summary;
  }

  const runDue = () => sendBatch();

  function tick() {
    if (running) {
      again = true;
      return;
    }
    running = runDue()
      .catch((err) => opts.logger.error({ err }, 'webhook dispatcher run failed'))
      .finally(() => {
        running = null;
        if (again && timer) {
          again = false;
          setImmediate(tick);
        }
      });
  }

  return {
    runDue,
    deliverNow: (ids) =>
      ids.length === 0 ? Promise.resolve({ attempted: 0, succeeded: 0, failed: 0 }) : sendBatch(ids),
    nudge() {
      if (timer) setImmediate(tick);
    },
    start() {
      if (timer) return;
      timer = setInterval(tick, pollMs);
      timer.unref();
      setImmediate(tick);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
