import { describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import { databaseForFile } from '../helpers/file-database.js';
import { checkoutUpdated, sandboxEndpoint } from './webhook-rows.js';

/**
 * A claim locks the endpoints it claims for, so two instances never count and fill the same
 * endpoint's slots at once. That lock was a row lock (`FOR NO KEY UPDATE`), which writes the
 * endpoint's row on every claim: its `xmax` set to the claimer, a WAL record and a dirty page, and
 * a MultiXact beside the API's foreign-key lock on the same row. It is now an advisory lock, which
 * writes nothing. Counted, not timed: the endpoint rows' `xmax` after claims, and the lock seen
 * from a second connection while the claim's transaction is open.
 */
describe('the endpoint lock of a webhook claim on PostgreSQL', () => {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-endpoint-lock-');
  const at = '2026-01-01T00:00:00.000Z';
  const now = '2026-01-01T00:01:00.000Z';
  const leaseUntil = '2026-01-01T00:02:00.000Z';

  it('writes no endpoint row, and holds the endpoint until the claim commits', async () => {
    const { db } = opened;
    const s = commerceStores(db).webhooks;
    for (const w of ['we_1', 'we_2']) {
      await s.insertEndpoint(sandboxEndpoint(w, `https://hooks.example.com/${w}`, at));
      for (let n = 0; n < 3; n++) {
        await s.insertEvent(checkoutUpdated(`evt_${w}_${n}`, at));
        await s.insertDeliveries([{ id: `dlv_${w}_${n}`, event_id: `evt_${w}_${n}`, endpoint_id: w }], at);
      }
    }
    const other = await opened.another();
    const claimDue = (limit: number) =>
      db.transaction(async (tx) => {
        const got = await commerceStores(tx).webhooks.claimDue(now, leaseUntil, 'owner-1', {
          limit,
          perEndpoint: 2,
          dialect: db.dialect,
        });
        // Another connection sees the claimed endpoints as taken while this one is open.
        const held = await other.all<{ id: string; free: boolean }>(
          `SELECT id, pg_try_advisory_xact_lock(hashtextextended('svc webhook claim ' || id, 0)) AS free
             FROM webhook_endpoints ORDER BY id`,
        );
        return { claimed: got.map((d) => d.id).sort(), held };
      });

    // The API's inserts above left their foreign-key lock's mark (`xmax`) on the endpoint rows;
    // a claim must leave it as it is.
    const marks = () =>
      db.all<{ id: string; xmax: string }>(
        'SELECT id, xmax::text AS xmax FROM webhook_endpoints ORDER BY id',
      );
    const before = await marks();
    const first = await claimDue(10);
    expect(first.claimed).toEqual(['dlv_we_1_0', 'dlv_we_1_1', 'dlv_we_2_0', 'dlv_we_2_1']);
    expect(first.held).toEqual([
      { id: 'we_1', free: false },
      { id: 'we_2', free: false },
    ]);
    // Both endpoints are full (2 in flight each): locked and counted, nothing more claimed.
    expect((await claimDue(10)).claimed).toEqual([]);

    expect(await marks()).toEqual(before);
    // The lock ended with the claim's transaction.
    const after = await other.all<{ free: boolean }>(
      `SELECT pg_try_advisory_xact_lock(hashtextextended('svc webhook claim ' || id, 0)) AS free
         FROM webhook_endpoints ORDER BY id`,
    );
    expect(after).toEqual([{ free: true }, { free: true }]);
  });
});
