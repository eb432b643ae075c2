import { beforeAll, describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import type { SqlDatabase, SqlExecutor } from '../../src/platform/db/sql.js';
import { databaseForFile } from '../helpers/file-database.js';
import { checkoutUpdated, sandboxEndpoint } from './webhook-rows.js';

/**
 * Two dispatchers (two instances) claiming due webhook deliveries from one database, with their
 * claim transactions forced to overlap: the first has claimed but not committed when the second
 * claims. Read committed, the second sees the deliveries as unclaimed; only the claim's locks keep
 * it from taking them too (sending them twice at once) or from waiting on the first.
 */
describe('claiming due webhook deliveries from two instances', () => {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-claim-');
  let one: SqlDatabase;
  let two: SqlDatabase;
  beforeAll(async () => {
    one = opened.db;
    two = await opened.another();
  });

  /** An endpoint of acct_1 with one pending delivery per number: `evt_<n>` delivered as `del_<n>`. */
  async function endpointWithDeliveries(id: string, url: string, numbers: number[], at: string) {
    const s = commerceStores(one);
    await s.webhooks.insertEndpoint(sandboxEndpoint(id, url, at));
    for (const n of numbers) {
      await s.webhooks.insertEvent(checkoutUpdated(`evt_${n}`, at));
      await s.webhooks.insertDelivery({ id: `del_${n}`, event_id: `evt_${n}`, endpoint_id: id, at });
    }
    return s;
  }

  it('a claim made while another is uncommitted takes none of its deliveries, and never waits for it', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    await endpointWithDeliveries('we_1', 'https://hooks.example.com/', [1, 2, 3], at);
    const claim = (db: SqlDatabase, owner: string, hold: () => Promise<void> = async () => {}) =>
      db.transaction(async (tx) => {
        if (db.dialect === 'postgres') await tx.run("SET LOCAL lock_timeout = '5s'");
        const got = await commerceStores(tx).webhooks.claimDue(
          '2026-01-01T00:01:00.000Z',
          '2026-01-01T00:02:00.000Z',
          owner,
          { limit: 10, perEndpoint: 10, dialect: db.dialect },
        );
        await hold();
        return got;
      });

    let claimed!: () => void;
    const firstClaimed = new Promise<void>((r) => {
      claimed = r;
    });
    let commit!: () => void;
    const mayCommit = new Promise<void>((r) => {
      commit = r;
    });
    // The first claims, then holds its transaction open (its claims uncommitted) until let go.
    const first = claim(one, 'claimer-one', () => {
      claimed();
      return mayCommit;
    });
    await firstClaimed;
    const second = claim(two, 'claimer-two');
    if (one.dialect === 'postgres') {
      // The second runs to its end inside the first's transaction: it must skip what the first
      // holds rather than wait (a wait would hit lock_timeout and fail here).
      const got = await second.catch((err) => {
        commit();
        throw err;
      });
      commit();
      expect(got).toEqual([]);
    } else {
      // SQLite: BEGIN IMMEDIATE makes the second wait for the first's write lock; it then sees the
      // committed claims.
      await new Promise((r) => setImmediate(r));
      commit();
      expect(await second).toEqual([]);
    }
    expect((await first).map((d) => d.id).sort()).toEqual(['del_1', 'del_2', 'del_3']);
    const owners = await one.all<{ lease_owner: string }>('SELECT lease_owner FROM deliveries ORDER BY id');
    expect(owners.map((o) => o.lease_owner)).toEqual(['claimer-one', 'claimer-one', 'claimer-one']);
  });

  it('a batch of outcomes is written only where its claim still holds; the rest leave no trace', async () => {
    const at = '2026-01-02T00:00:00.000Z';
    const s = await endpointWithDeliveries('we_2', 'https://hooks.example.com/2', [4, 5, 6], at);
    const claimed = await one.transaction((tx) =>
      commerceStores(tx).webhooks.claimDue('2026-01-02T00:01:00.000Z', '2026-01-02T00:02:00.000Z', 'mine', {
        limit: 10,
        perEndpoint: 10,
        dialect: one.dialect,
        ids: ['del_4', 'del_5', 'del_6'],
      }),
    );
    expect(claimed.map((d) => d.id).sort()).toEqual(['del_4', 'del_5', 'del_6']);
    // del_5's lease ran out and another instance took it over.
    await one.run("UPDATE deliveries SET lease_owner = 'theirs' WHERE id = 'del_5'");
    const outcome = (id: string, attempt: number) => ({
      owner: 'mine',
      delivery_id: id,
      attempt,
      started_at: '2026-01-02T00:01:00.000Z',
      status_code: 200,
      error: null,
      next_attempt_at: null,
      status: 'succeeded' as const,
      at: '2026-01-02T00:01:01.000Z',
    });
    // del_6 is reported as its second attempt while the database holds none: not written either.
    const written = await one.transaction((tx) =>
      commerceStores(tx).webhooks.recordAttempts(
        [outcome('del_4', 1), outcome('del_5', 1), outcome('del_6', 2)],
        one.dialect,
      ),
    );
    expect(written).toEqual([true, false, false]);
    const rows = await one.all<{ id: string; status: string; attempts: number; lease_owner: string | null }>(
      "SELECT id, status, attempts, lease_owner FROM deliveries WHERE id IN ('del_4', 'del_5', 'del_6') ORDER BY id",
    );
    expect(rows.map((r) => [r.id, r.status, Number(r.attempts), r.lease_owner])).toEqual([
      ['del_4', 'succeeded', 1, null],
      ['del_5', 'pending', 0, 'theirs'],
      ['del_6', 'pending', 0, 'mine'],
    ]);
    const attempts = await s.webhooks.attemptsFor(['del_4', 'del_5', 'del_6']);
    expect(attempts.map((a) => [a.delivery_id, Number(a.attempt), Number(a.status_code)])).toEqual([
      ['del_4', 1, 200],
    ]);
  });

  it('an outcome that arrives after its endpoint was removed is recorded, and the delivery stays canceled with no retry', async () => {
    const at = '2026-01-03T00:00:00.000Z';
    const s = await endpointWithDeliveries('we_3', 'https://hooks.example.com/3', [7, 8], at);
    await one.transaction((tx) =>
      commerceStores(tx).webhooks.claimDue('2026-01-03T00:01:00.000Z', '2026-01-03T00:02:00.000Z', 'mine', {
        limit: 10,
        perEndpoint: 10,
        dialect: one.dialect,
        ids: ['del_7', 'del_8'],
      }),
    );
    // The endpoint is removed while both attempts are on the wire; both fail and ask for a retry.
    await s.webhooks.removeEndpoint('we_3', '2026-01-03T00:01:00.500Z');
    const failed = (id: string) => ({
      owner: 'mine',
      delivery_id: id,
      attempt: 1,
      started_at: '2026-01-03T00:01:00.000Z',
      status_code: 500,
      error: null,
      next_attempt_at: '2026-01-03T00:02:00.000Z',
      status: 'pending' as const,
      at: '2026-01-03T00:01:01.000Z',
    });
    // On SQLite each goes through recordAttempt's statement, on PostgreSQL through the batch one.
    expect(
      await one.transaction((tx) =>
        commerceStores(tx).webhooks.recordAttempts([failed('del_7')], one.dialect),
      ),
    ).toEqual([true]);
    expect(
      await one.transaction((tx) =>
        commerceStores(tx).webhooks.recordAttempts([failed('del_8')], one.dialect),
      ),
    ).toEqual([true]);
    const rows = await one.all<{
      id: string;
      status: string;
      attempts: number;
      next_attempt_at: string | null;
    }>(
      "SELECT id, status, attempts, next_attempt_at FROM deliveries WHERE id IN ('del_7', 'del_8') ORDER BY id",
    );
    expect(rows.map((r) => [r.id, r.status, Number(r.attempts), r.next_attempt_at])).toEqual([
      ['del_7', 'canceled', 1, null],
      ['del_8', 'canceled', 1, null],
    ]);
    const attempts = await s.webhooks.attemptsFor(['del_7', 'del_8']);
    expect(attempts.map((a) => [a.delivery_id, Number(a.status_code)])).toEqual([
      ['del_7', 500],
      ['del_8', 500],
    ]);
  });

  it('shares a claim round robin over what each endpoint has left, in two statements on PostgreSQL and three on SQLite', async () => {
    const at = '2026-01-04T00:00:00.000Z';
    await endpointWithDeliveries('we_4', 'https://hooks.example.com/4', [11, 12, 13, 14], at);
    await endpointWithDeliveries('we_5', 'https://hooks.example.com/5', [15, 16, 17, 18], at);
    const mine = ['del_11', 'del_12', 'del_13', 'del_14', 'del_15', 'del_16', 'del_17', 'del_18'];
    let statements = 0;
    const counted = (tx: SqlExecutor): SqlExecutor => ({
      get: (sql, params) => {
        statements++;
        return tx.get(sql, params);
      },
      all: (sql, params) => {
        statements++;
        return tx.all(sql, params);
      },
      run: (sql, params) => {
        statements++;
        return tx.run(sql, params);
      },
    });
    const claim = (owner: string, limit: number, ids = mine) =>
      one.transaction((tx) =>
        commerceStores(counted(tx)).webhooks.claimDue(
          '2026-01-04T00:01:00.000Z',
          '2026-01-04T00:02:00.000Z',
          owner,
          { limit, perEndpoint: 4, dialect: one.dialect, ids },
        ),
      );
    // Another instance has two of we_4's attempts in flight: we_4 has room for two more.
    expect((await claim('theirs', 10, ['del_11', 'del_12'])).map((d) => d.id)).toEqual(['del_11', 'del_12']);
    statements = 0;
    // Turn by turn across the endpoints, oldest first within each: we_4 gets what it has left.
    expect((await claim('mine', 4)).map((d) => d.id)).toEqual(['del_13', 'del_15', 'del_14', 'del_16']);
    // PostgreSQL: the endpoints' lock, then counts, pick and lease in one statement. SQLite (no
    // lock): the endpoints with their counts, the leases, then what to send.
    expect(statements).toBe(one.dialect === 'postgres' ? 2 : 3);
    // we_4 is full (two theirs, two mine): the rest of the claim goes to we_5 alone.
    expect((await claim('mine', 10)).map((d) => d.id)).toEqual(['del_17', 'del_18']);
    expect(await claim('mine', 10)).toEqual([]);
  });
});
