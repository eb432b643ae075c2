import type { Clock } from '../../platform/clock.js';
import type { SqlDatabase, SqlExecutor } from '../../platform/db/sql.js';
import { randomIds } from '../../platform/ids.js';
import { instanceName } from '../../platform/instance.js';
import type { Logger } from '../../platform/logger.js';
import { commerceStores } from '../db/stores.js';
import type { AttemptRecord, DeliveryStatus, DueDelivery } from '../db/webhooks-store.js';
import { nextAttemptAt } from './schedule.js';
import { type SendOptions, sendDeadline, sendSigned } from './sender.js';

export interface DispatcherOptions extends SendOptions {
  db: SqlDatabase;
  clock: Clock;
  logger: Logger;
  /** Jitter source; injected so domain code never calls Math.random itself. */
  random: () => number;
  pollMs?: number;
  /** Attempts in flight to one endpoint at most (default `PER_ENDPOINT_CONCURRENCY`). */
  perEndpoint?: number;
  /** Attempts in flight in all at most (default `MAX_CONCURRENCY`). */
  concurrency?: number;
  /** This instance's name on the deliveries it claims (a dispatcher of its own: a fresh name). */
  owner?: string;
}

type AttemptOutcome = AttemptRecord & { status: DeliveryStatus; at: string; owner: string };

export interface RunSummary {
  attempted: number;
  succeeded: number;
  failed: number;
}

export interface Dispatcher {
  /** Sends every delivery that is due now and waits for them; tests call this after moving the clock. */
  runDue(): Promise<RunSummary>;
  /** Sends these deliveries now if they are pending (dashboard "Send test" and "Resend"). */
  deliverNow(ids: string[]): Promise<RunSummary>;
  /** Asks the background loop to run soon: an event was just written. */
  nudge(): void;
  start(): void;
  /**
   * Claims nothing more in the background (a stop has begun): attempts in flight go on and are
   * recorded, and `runDue`/`deliverNow` (a request's own sends) still work.
   */
  stopClaiming(): void;
  stop(): Promise<void>;
}

/**
 * A claimed delivery stays with its sender this long; a crash mid-send frees it afterwards, for
 * any instance to take. Longer than a send can take (the sender's timeout), so an attempt is
 * never sent twice at once.
 */
export const LEASE_MS = 60_000;
/**
 * One endpoint never has more than this many attempts in flight, so a slow or hanging endpoint
 * holds at most this many of the dispatcher's slots and delays only its own deliveries. It also
 * caps a healthy endpoint's rate at this many attempts per claim-send-record cycle: at 4, an
 * endpoint taking 160 events a second left no room to catch up after any pause (a GC, a disk
 * sync, a busy core), and its queue, not the sending, was the first attempts' tail. At 16 the
 * same happened on PostgreSQL with both cores busy: a cycle (the step that records and claims,
 * the send, the next step) took 100-150 ms, so 15 endpoints of 16 slots carried at most about
 * 1,700 deliveries a second, and first attempts queued 0.5-1.4 s for a slot. At 32, with the same
 * load offered, the queue was gone (p50 517 → 179 ms; docs/benchmarks.md). It is also the size
 * of each endpoint's connection pool (`publicStatus`'s `connections`), so the two cannot disagree.
 */
export const PER_ENDPOINT_CONCURRENCY = 32;
/**
 * Attempts in flight across all endpoints: 16 endpoints hanging at once (an environment's
 * most) still leave none starved for long.
 */
export const MAX_CONCURRENCY = 16 * PER_ENDPOINT_CONCURRENCY;

/**
 * The body every endpoint of an event receives: `{ id, type, created_at, data }`, the same bytes
 * as `JSON.stringify` of that object (`data` is already JSON, as `JSON.stringify` wrote it).
 */
export function eventBody(
  d: Pick<DueDelivery, 'event_id' | 'event_type' | 'event_created_at' | 'event_data_json'>,
) {
  const text = JSON.stringify;
  return `{"id":${text(d.event_id)},"type":${text(d.event_type)},"created_at":${text(d.event_created_at)},"data":${d.event_data_json}}`;
}

/**
 * Delivers from the outbox with one queue per endpoint. Slots are claimed from the database with
 * a lease (no double sending from two loops) and refilled as each attempt ends, so a healthy
 * endpoint's deliveries go out while a hanging endpoint's attempts wait for their timeout.
 *
 * The background loop is one step at a time: a step writes every outcome that finished since the
 * last one and, in the same transaction, claims for every slot free once they are written. A
 * nudge, the poll and a finished attempt all ask for a step; asked while one runs, the next step
 * follows it at once and takes everything that arrived meanwhile. So under load the steps run
 * back to back and grow (one commit for many outcomes and claims), and a finished attempt's slot
 * is refilled by the next step, never left for the poll.
 */
export function createDispatcher(opts: DispatcherOptions): Dispatcher {
  const pollMs = opts.pollMs ?? 1_000;
  const owner = opts.owner ?? instanceName(randomIds);
  const perEndpoint = opts.perEndpoint ?? PER_ENDPOINT_CONCURRENCY;
  const concurrency = opts.concurrency ?? MAX_CONCURRENCY;
  // The per-endpoint limit also sizes each endpoint's connection pool: one connection per attempt
  // in flight, from this one number.
  const sending = { ...opts, connections: perEndpoint };
  let timer: NodeJS.Timeout | null = null;
  /** This process's attempts in flight (per endpoint, the database counts every instance's). */
  const inFlight = new Set<Promise<boolean>>();
  /**
   * Claims this process holds and has not given back: an attempt's slot is free again once its
   * outcome is written (or the attempt gave up). Changed only by links of `claimChain` and by
   * attempts ending, so a link's free-slot count can only be too low, never too high.
   */
  let held = 0;
  /** This process's claims and outcome writes run one at a time, so its free-slot count is never stale. */
  let claimChain: Promise<unknown> = Promise.resolve();
  function chain<T>(step: () => Promise<T>): Promise<T> {
    const link = claimChain.then(step);
    claimChain = link.catch(() => undefined);
    return link;
  }
  /** A background step is queued or running; `stepAgain`: asked for meanwhile, run one more after it. */
  let stepping = false;
  let stepAgain = false;

  /** Outcomes waiting to be written by the next step. */
  let toRecord: {
    outcome: AttemptOutcome;
    free: () => void;
    done: (recorded: boolean) => void;
    failed: (err: unknown) => void;
  }[] = [];

  /** Claims up to `limit` due deliveries (optionally only `ids`) inside the transaction `tx`. */
  function claim(tx: SqlExecutor, limit: number, ids?: string[]): Promise<DueDelivery[]> {
    const now = opts.clock.now();
    return commerceStores(tx).webhooks.claimDue(
      now.toISOString(),
      new Date(now.getTime() + LEASE_MS).toISOString(),
      owner,
      { limit, perEndpoint, dialect: opts.db.dialect, ...(ids ? { ids } : {}) },
    );
  }

  /**
   * One step: writes the outcomes waiting and, while the background loop runs, claims for the
   * slots free once they are written, in one transaction (a commit each was most of a delivery's
   * cost). An attempt's slot and lease are given back only once its outcome is written; the
   * per-endpoint count in `claimDue` reads the leases this transaction just cleared, so the limit
   * holds. Nothing to write and no slot free: no transaction at all.
   */
  function step(): Promise<void> {
    return chain(async () => {
      const batch = toRecord;
      toRecord = [];
      const room = timer ? concurrency - held + batch.length : 0;
      if (batch.length === 0 && room <= 0) return;
      try {
        const { recorded, due } = await opts.db.transaction(async (tx) => ({
          recorded: await commerceStores(tx).webhooks.recordAttempts(
            batch.map((b) => b.outcome),
            opts.db.dialect,
          ),
          due: room > 0 ? await claim(tx, room) : [],
        }));
        for (const [i, b] of batch.entries()) {
          b.free();
          b.done(recorded[i] ?? false);
        }
        launchAll(due);
      } catch (err) {
        for (const b of batch) {
          b.free();
          b.failed(err);
        }
        // Nothing written or claimed: the outcomes' attempts are made again after their lease.
        if (batch.length === 0) opts.logger.error({ err }, 'webhook dispatcher run failed');
      }
    });
  }

  /**
   * Asks for a background step. It starts with `setImmediate`, after the I/O callbacks already
   * due, so attempts that end together share it, and no later: an outcome is durable only once
   * written (after a kill -9 before that, the attempt is made again when its lease runs out).
   */
  function wake() {
    if (stepping) {
      stepAgain = true;
      return;
    }
    stepping = true;
    setImmediate(() => {
      // A step catches its own transaction's failure; this is for anything else, so no step
      // ends in an unhandled rejection and the loop goes on.
      step()
        .catch((err) => opts.logger.error({ err }, 'webhook dispatcher run failed'))
        .finally(() => {
          stepping = false;
          if (stepAgain) {
            stepAgain = false;
            wake();
          }
        });
    });
  }

  function record(outcome: AttemptOutcome, free: () => void): Promise<boolean> {
    return new Promise((done, failed) => {
      toRecord.push({ outcome, free, done, failed });
      wake();
    });
  }

  async function attempt(d: DueDelivery, free: () => void, deadline: Promise<AbortSignal>): Promise<boolean> {
    const body = eventBody(d);
    const started = opts.clock.now();
    const outcome = await sendSigned(d.url, d.secret, body, started, sending, deadline);
    const number = d.attempts + 1;
    const retryAt = outcome.ok ? null : nextAttemptAt(opts.clock.now(), number, opts.random);
    const recorded = await record(
      {
        owner,
        delivery_id: d.id,
        attempt: number,
        started_at: started.toISOString(),
        status_code: outcome.status,
        error: outcome.error,
        next_attempt_at: retryAt?.toISOString() ?? null,
        status: outcome.ok ? 'succeeded' : retryAt ? 'pending' : 'failed',
        at: opts.clock.now().toISOString(),
      },
      free,
    );
    if (!recorded) {
      // Our claim ran out mid-send and another instance took the delivery: its attempt counts.
      opts.logger.warn(
        { delivery: d.id, attempt: number },
        'webhook attempt finished after its lease ran out; not recorded',
      );
      return outcome.ok;
    }
    if (!outcome.ok) {
      opts.logger.warn(
        { delivery: d.id, event: d.event_id, attempt: number, status: outcome.status, error: outcome.error },
        retryAt ? 'webhook delivery failed; will retry' : 'webhook delivery failed for the last time',
      );
    }
    return outcome.ok;
  }

  /** Whether this dispatcher has told the database that its writes are coming (`expectWrites`). */
  let writing = false;

  /** Starts the attempts a claim returned, under one deadline (they start together). */
  function launchAll(due: DueDelivery[]): Promise<boolean>[] {
    if (due.length === 0) return [];
    // From the first delivery on, every attempt is a lease and an outcome written: the database
    // gets ready for that now, not a second into the first burst (see SqlDatabase.expectWrites).
    // Not at start: a server that never delivers keeps SQLite's checkpoints, and their thread's
    // memory, to itself.
    if (!writing) {
      writing = true;
      opts.db.expectWrites();
    }
    const deadline = sendDeadline(opts);
    return due.map((d) => launch(d, deadline));
  }

  /** Starts one attempt in a slot; the slot is given back, and refilled, when it ends. */
  function launch(d: DueDelivery, deadline: Promise<AbortSignal>): Promise<boolean> {
    held += 1;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      held -= 1;
    };
    const run = attempt(d, free, deadline)
      .catch((err) => {
        // The attempt could not be recorded; its lease runs out and it is tried again.
        opts.logger.error({ err, delivery: d.id }, 'webhook delivery could not be recorded');
        return false;
      })
      .finally(() => {
        inFlight.delete(run);
        // A slot given back without a step (the attempt ended before its outcome reached one)
        // is claimed for by a step of its own.
        if (!freed) {
          free();
          if (timer) wake();
        }
      });
    inFlight.add(run);
    return run;
  }

  /** Claims what the free slots allow (optionally only `ids`) and starts each attempt. */
  function claimAndLaunch(ids?: string[]): Promise<Promise<boolean>[]> {
    return chain(async () => {
      const limit = concurrency - held;
      if (limit <= 0) return [];
      const due = await opts.db.transaction((tx) => claim(tx, limit, ids));
      return launchAll(due);
    });
  }

  /** Keeps claiming as slots free up until nothing more is due, and waits for what it started. */
  async function drain(ids?: string[]): Promise<RunSummary> {
    const summary: RunSummary = { attempted: 0, succeeded: 0, failed: 0 };
    const mine = new Set<Promise<boolean>>();
    for (;;) {
      for (const run of await claimAndLaunch(ids)) {
        mine.add(run);
        run.then((ok) => {
          mine.delete(run);
          summary.attempted += 1;
          if (ok) summary.succeeded += 1;
          else summary.failed += 1;
        });
      }
      if (mine.size === 0) return summary;
      await Promise.race(mine);
    }
  }

  // The background loop's claims hang on `timer`: a step claims for free slots only while it is set.
  function stopClaiming() {
    if (timer) clearInterval(timer);
    timer = null;
  }

  return {
    runDue: () => drain(),
    deliverNow: (ids) =>
      ids.length === 0 ? Promise.resolve({ attempted: 0, succeeded: 0, failed: 0 }) : drain(ids),
    nudge() {
      if (timer) wake();
    },
    start() {
      if (timer) return;
      timer = setInterval(wake, pollMs);
      timer.unref();
      wake();
    },
    stopClaiming,
    async stop() {
      stopClaiming();
      await claimChain;
      await Promise.all(inFlight);
    },
  };
}
