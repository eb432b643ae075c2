import { describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import type { AttemptOutcomeRecord } from '../../src/commerce/db/webhooks-store.js';
import type { SqlDatabase, SqlExecutor } from '../../src/platform/db/sql.js';
import { databaseForFile } from '../helpers/file-database.js';
import { checkoutUpdated, firstAttemptOk, sandboxEndpoint } from './webhook-rows.js';

/** `db` with every statement text it is sent collected in `texts`. */
function watched(db: SqlExecutor, texts: Set<string>): SqlExecutor {
  const seen = (sql: string) => {
    texts.add(sql);
    return sql;
  };
  return {
    get: (sql, params) => db.get(seen(sql), params),
    all: (sql, params) => db.all(seen(sql), params),
    run: (sql, params) => db.run(seen(sql), params),
  };
}

/**
 * The dispatcher's claim and outcome batches change size with every step (how many attempts
 * ended, how many endpoints have work). On PostgreSQL every statement text is prepared once per
 * connection and kept in a bounded cache (STATEMENTS_PER_CONNECTION): a text that spells out its
 * batch (`IN (?, ?, …)`) was a new statement for every size, parsed and planned afresh, and up to
 * 256 sizes of the outcome batch alone could push the API's hot statements out of that cache.
 * The threat here: batch SQL whose text grows with the batch. The rows written must stay right
 * for every outcome in a mixed batch.
 */
describe('webhook claim and outcome batches', () => {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-batch-statements-');
  const at = '2026-01-01T00:00:00.000Z';
  const now = '2026-01-01T00:01:00.000Z';
  const leaseUntil = '2026-01-01T00:02:00.000Z';
  const endpoints = Array.from({ length: 6 }, (_, i) => `we_${i}`);
  let event = 0;

  /** One new event delivered to the first `k` endpoints; its delivery ids. */
  async function eventFor(db: SqlDatabase, k: number): Promise<string[]> {
    const id = `evt_${++event}`;
    const s = commerceStores(db).webhooks;
    await s.insertEvent(checkoutUpdated(id, at));
    const rows = endpoints
      .slice(0, k)
      .map((w) => ({ id: `dlv_${event}_${w}`, event_id: id, endpoint_id: w }));
    await s.insertDeliveries(rows, at);
    return rows.map((r) => r.id);
  }

  const claim = (db: SqlDatabase, texts: Set<string>, owner = 'owner-1') =>
    db.transaction((tx) =>
      commerceStores(watched(tx, texts)).webhooks.claimDue(now, leaseUntil, owner, {
        limit: 100,
        perEndpoint: 16,
        dialect: db.dialect,
      }),
    );

  const outcome = (id: string, o: Partial<AttemptOutcomeRecord> = {}) => firstAttemptOk(id, now, o);

  it('claims for 1 to 6 endpoints and records batches of 1 to 6 outcomes with the same statements', async () => {
    const { db } = opened;
    for (const id of endpoints)
      await commerceStores(db).webhooks.insertEndpoint(
        sandboxEndpoint(id, `https://hooks.example.com/${id}`, at),
      );

    const claimTexts = new Set<string>();
    const recordTexts = new Set<string>();
    const claimedIds: string[] = [];
    // Claims over a growing number of endpoints with work: each claim sees k endpoints.
    for (let k = 1; k <= endpoints.length; k++) {
      const made = await eventFor(db, k);
      const got = await claim(db, claimTexts);
      expect(got.map((d) => d.id).sort()).toEqual([...made].sort());
      claimedIds.push(...made);
    }
    // 21 deliveries claimed; outcomes written in batches of 1, 2, … (sizes 1 to 6), as steps do.
    let from = 0;
    for (let size = 1; from < claimedIds.length; size++) {
      const batch = claimedIds.slice(from, from + size).map((id) => outcome(id));
      from += size;
      const recorded = await db.transaction((tx) =>
        commerceStores(watched(tx, recordTexts)).webhooks.recordAttempts(batch, db.dialect),
      );
      expect(recorded).toEqual(batch.map(() => true));
    }
    // 6 outcome batches of sizes 1 to 6, one statement text whatever the size (PostgreSQL: one
    // statement for the batch; SQLite, in-process: an UPDATE and an INSERT per outcome).
    expect(recordTexts.size).toBe(db.dialect === 'postgres' ? 1 : 2);
    // 6 claims over 1 to 6 endpoints, PostgreSQL: the endpoints' lock and the lease, the same two
    // texts every time. (SQLite's lease is a UNION of one part per endpoint, prepared in-process.)
    if (db.dialect === 'postgres') expect(claimTexts.size).toBe(2);
  });

  it('writes each outcome of a mixed batch by its own rule', async () => {
    const { db } = opened;
    const made = await eventFor(db, 6);
    const texts = new Set<string>();
    const got = await claim(db, texts);
    expect(got.map((d) => d.id).sort()).toEqual([...made].sort());
    const [ok, retry, last, stale, canceled, secondOwner] = made as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    // One delivery canceled while its attempt was out (its endpoint removed): it stays canceled.
    await db.run("UPDATE deliveries SET status = 'canceled', next_attempt_at = NULL WHERE id = ?", [
      canceled,
    ]);
    const retryAt = '2026-01-01T00:06:00.000Z';
    const batch = [
      outcome(ok),
      outcome(retry, {
        status: 'pending',
        status_code: 500,
        error: 'The endpoint answered 500.',
        next_attempt_at: retryAt,
      }),
      outcome(last, { status: 'failed', status_code: null, error: 'No response within 10 s.' }),
      // Not this owner's claim any more (its lease ran out and another took it): not recorded.
      outcome(stale, { owner: 'owner-2' }),
      outcome(canceled, { status: 'pending', status_code: 503, next_attempt_at: retryAt }),
      // An attempt number the delivery is not at: not recorded either.
      outcome(secondOwner, { attempt: 2 }),
    ];
    const recorded = await db.transaction((tx) =>
      commerceStores(tx).webhooks.recordAttempts(batch, db.dialect),
    );
    expect(recorded).toEqual([true, true, true, false, true, false]);

    const rows = await db.all<{
      id: string;
      status: string;
      attempts: number;
      next_attempt_at: string | null;
      lease_owner: string | null;
      last_status: number | null;
    }>(
      `SELECT id, status, attempts, next_attempt_at, lease_owner, last_status FROM deliveries WHERE id IN (${made.map(() => '?').join(', ')}) ORDER BY id`,
      made,
    );
    const byId = new Map(
      rows.map((r) => [
        r.id,
        {
          ...r,
          attempts: Number(r.attempts),
          last_status: r.last_status === null ? null : Number(r.last_status),
        },
      ]),
    );
    expect(byId.get(ok)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      next_attempt_at: null,
      lease_owner: null,
      last_status: 200,
    });
    expect(byId.get(retry)).toMatchObject({
      status: 'pending',
      attempts: 1,
      next_attempt_at: retryAt,
      lease_owner: null,
      last_status: 500,
    });
    expect(byId.get(last)).toMatchObject({
      status: 'failed',
      attempts: 1,
      next_attempt_at: null,
      lease_owner: null,
      last_status: null,
    });
    expect(byId.get(canceled)).toMatchObject({
      status: 'canceled',
      attempts: 1,
      next_attempt_at: null,
      lease_owner: null,
    });
    // The two not recorded keep their claim and attempt count, untouched.
    expect(byId.get(stale)).toMatchObject({ status: 'pending', attempts: 0, lease_owner: 'owner-1' });
    expect(byId.get(secondOwner)).toMatchObject({ status: 'pending', attempts: 0, lease_owner: 'owner-1' });

    const attempts = await commerceStores(db).webhooks.attemptsFor(made);
    expect(attempts.map((a) => [a.delivery_id, Number(a.attempt), a.next_attempt_at]).sort()).toEqual(
      [
        [ok, 1, null],
        [retry, 1, retryAt],
        [last, 1, null],
        [canceled, 1, retryAt],
      ].sort(),
    );
  });
});
