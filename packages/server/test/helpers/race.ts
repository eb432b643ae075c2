import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { Config } from '../../src/config.js';
import type { ManualClock } from '../../src/platform/clock.js';
import type { SqlDatabase, SqlExecutor, SqlParams, TransactionOptions } from '../../src/platform/db/sql.js';
import type { Logger } from '../../src/platform/logger.js';
import { sameDatabase, startTestService, type TestService } from './start.js';

type Tx = <T>(fn: (tx: SqlExecutor) => Promise<T>, opts?: TransactionOptions) => Promise<T>;

/**
 * Two requests on two database handles (two instances: two connections to one SQLite file, or
 * two pools on one PostgreSQL database),
 * interleaved deterministically the way a race would do it: `second` runs until its first write
 * (opening a transaction, or a statement outside one), then `first` runs its first write to the
 * end (a whole transaction), then `second` goes on.
 *
 * So whatever `second` reads before its transaction is read before `first` writes, and its
 * transaction sees what `first` committed. A check made outside the transaction that acts on
 * it is fooled; a check inside it (or a write the schema guards) is not. Each handle keeps its own
 * gate, as on two instances: nothing here puts the two requests through one gate.
 *
 * Two processes wait for SQLite's write lock in `busy_timeout`; two handles in one process cannot
 * (better-sqlite3 waits synchronously, so the holder never gets to commit). While `run` runs, the
 * handles' writes therefore take one asynchronous lock instead: the file lock, made awaitable.
 * On PostgreSQL the same lock keeps the order deterministic; the row locks would allow more.
 *
 * If either side ends without reaching a transaction, the other is let go, so a test never hangs.
 */
export function interleave(first: SqlDatabase, second: SqlDatabase) {
  let secondReached!: () => void;
  const reached = new Promise<void>((resolve) => {
    secondReached = resolve;
  });
  let firstSettled!: () => void;
  const settled = new Promise<void>((resolve) => {
    firstSettled = resolve;
  });

  let lock: Promise<void> = Promise.resolve();
  const exclusively = <T>(fn: () => Promise<T>): Promise<T> => {
    const turn = lock.then(fn);
    lock = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  };
  const restore: (() => void)[] = [];
  const hook = (db: SqlDatabase, before: () => Promise<void>, after: () => void) => {
    const tx: Tx = db.transaction.bind(db);
    const run = db.run.bind(db);
    let pending = true;
    // A side's first write (a transaction, or a statement outside one) is where it waits its turn.
    const gated = async <T>(op: () => Promise<T>): Promise<T> => {
      if (!pending) return exclusively(op);
      pending = false;
      await before();
      try {
        return await exclusively(op);
      } finally {
        after();
      }
    };
    db.transaction = <T>(fn: (tx: SqlExecutor) => Promise<T>, opts?: TransactionOptions) =>
      gated(() => tx(fn, opts));
    db.run = (sql: string, params?: SqlParams) => gated(() => run(sql, params));
    restore.push(() => {
      db.transaction = tx;
      db.run = run;
    });
  };
  hook(first, () => reached, firstSettled);
  hook(
    second,
    async () => {
      secondReached();
      await settled;
    },
    () => undefined,
  );

  return {
    /** Runs both sides and waits for both; each result is settled as the request ended. */
    async run<A, B>(
      a: () => Promise<A>,
      b: () => Promise<B>,
    ): Promise<[PromiseSettledResult<A>, PromiseSettledResult<B>]> {
      try {
        return (await Promise.allSettled([a().finally(firstSettled), b().finally(secondReached)])) as [
          PromiseSettledResult<A>,
          PromiseSettledResult<B>,
        ];
      } finally {
        for (const r of restore) r();
      }
    },
  };
}

/** The value of a settled side, or the error it threw, rethrown so the test reports it. */
export function settledValue<T>(r: PromiseSettledResult<T>): T {
  if (r.status === 'rejected') throw r.reason;
  return r.value;
}

/**
 * Two instances of one service on one data directory and one clock: two database handles on the
 * same SQLite file, each with its own gate, or two pools on the same PostgreSQL database, as two
 * `svc-server start` processes would have. A `logger` is the first instance's; the second is silent.
 */
export async function twoInstances(
  name: 'content' | 'commerce',
  opts: { clock?: ManualClock; config?: Partial<Config>; logger?: Logger } = {},
) {
  const a = await startTestService(name, opts);
  let b: TestService;
  try {
    b = await startTestService(name, {
      dataDir: a.dataDir,
      clock: a.clock,
      config: { ...opts.config, ...sameDatabase(a) },
    });
  } catch (err) {
    // Nobody holds `a` yet to close it: its server, data directory and database would outlive the file.
    await a.close();
    throw err;
  }
  return {
    a,
    b,
    /** Closes the second first: closing the first removes the shared data directory. */
    async close() {
      await b.close();
      await a.close();
    },
  };
}

/**
 * `twoInstances` for the calling file's tests: started before the first, closed after the last.
 * Read `a` and `b` inside a test.
 */
export const twoInstancesForFile = (
  name: 'content' | 'commerce',
  opts: Parameters<typeof twoInstances>[1] = {},
) =>
  twoInstancesAround(
    name,
    opts,
    beforeAll,
    afterAll,
    'twoInstancesForFile: the instances start in beforeAll',
  );

/**
 * `twoInstances` made anew for each test of the calling file (started before it, closed after
 * it), for tests that leave an instance as a crash would. Read `a` and `b` inside a test.
 */
export const twoInstancesForEachTest = (
  name: 'content' | 'commerce',
  opts: Parameters<typeof twoInstances>[1] = {},
) =>
  twoInstancesAround(
    name,
    opts,
    beforeEach,
    afterEach,
    'twoInstancesForEachTest: the instances start in beforeEach',
  );

function twoInstancesAround(
  name: 'content' | 'commerce',
  opts: Parameters<typeof twoInstances>[1],
  before: typeof beforeAll,
  after: typeof afterAll,
  early: string,
) {
  let pair: Awaited<ReturnType<typeof twoInstances>> | undefined;
  before(async () => {
    pair = await twoInstances(name, opts);
  });
  after(async () => {
    await pair?.close();
    pair = undefined;
  });
  const started = () => {
    if (!pair) throw new Error(`${early}; use them in a test.`);
    return pair;
  };
  return {
    get a(): TestService {
      return started().a;
    },
    get b(): TestService {
      return started().b;
    },
  };
}
