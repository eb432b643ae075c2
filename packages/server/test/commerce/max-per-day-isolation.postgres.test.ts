import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import type { SqlDatabase, SqlExecutor, TransactionOptions } from '../../src/platform/db/sql.js';
import { twoInstances } from '../helpers/race.js';
import { makeKey, twoCheckoutsOverMaxPerDay } from './helpers.js';

/**
 * The lost update `max_per_day` must survive on PostgreSQL, where two instances' confirm
 * transactions really run side by side (SQLite serialises writers, so it cannot happen there).
 * Each confirm sums the user's spending, then writes its own checkout: two different rows. At
 * READ COMMITTED both sums miss the other confirm and both orders go through, together over the
 * limit. Here both transactions are held right after reading the sum until the other has read it
 * too, which is exactly that interleaving, every run.
 */
function holdAfterSpendingRead(dbs: SqlDatabase[]) {
  let arrived = 0;
  let release!: () => void;
  const bothRead = new Promise<void>((resolve) => {
    release = resolve;
  });
  // Never a hang: a side that waits alone goes on after a while (the test then fails, if it must).
  const timer = setTimeout(release, 5_000);
  const restore = dbs.map((db) => {
    const original = db.transaction.bind(db);
    db.transaction = <T>(fn: (tx: SqlExecutor) => Promise<T>, opts?: TransactionOptions) =>
      original(
        (tx) =>
          fn({
            ...tx,
            get: tx.get.bind(tx),
            run: tx.run.bind(tx),
            all: async (sql, params) => {
              const rows = await tx.all(sql, params);
              if (sql.includes("status = 'confirming'")) {
                if (++arrived === 2) release();
                await bothRead;
              }
              return rows as never;
            },
          }),
        opts,
      );
    return () => {
      db.transaction = original;
    };
  });
  return () => {
    clearTimeout(timer);
    for (const r of restore) r();
  };
}

describe('max_per_day on PostgreSQL: two instances confirming at once', () => {
  let instances: Awaited<ReturnType<typeof twoInstances>>;
  let key: string;
  beforeAll(async () => {
    instances = await twoInstances('commerce');
    key = await makeKey(instances.a, 'sandbox');
  });
  afterAll(() => instances.close());

  it('both sums read before either commits: one confirm completes, the other is refused, the limit holds', async () => {
    const { onA, onB, one, two } = await twoCheckoutsOverMaxPerDay(instances, key);

    const dbOf = (s: typeof instances.a) => (s.handle as CommerceServiceHandle).db;
    const restore = holdAfterSpendingRead([dbOf(instances.a), dbOf(instances.b)]);
    let answers: Awaited<ReturnType<typeof onA>>[];
    try {
      answers = await Promise.all([
        onA('POST', `/v1/checkouts/${one}/confirm`),
        onB('POST', `/v1/checkouts/${two}/confirm`),
      ]);
    } finally {
      restore();
    }
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 422]);
    expect(answers.find((r) => r.status === 200)?.body.status).toBe('completed');
    expect(answers.find((r) => r.status === 422)?.body.error.code).toBe('MAX_PER_DAY_EXCEEDED');
    expect((await onA('GET', '/v1/orders')).body.orders).toHaveLength(1);
  });
});
