// Outside review of stop 36 (branch review2). The threat: starvation of an endpoint by the order
// a claim lists endpoints in. A claim hands out at most its `limit` attempts, which is the
// dispatcher's free room: under load, one or a few as attempts end. Both engines listed the
// endpoints with due work by id and gave the room to the first ones (SQLite: `shareRoom` over the
// list in id order; PostgreSQL: the lock list `ORDER BY id LIMIT`, then `ORDER BY turn,
// endpoint_id`). So while endpoints sorting first have due work and room (a busy account's
// backlog, refilled by its own traffic), an endpoint sorting after them got nothing, however long
// its delivery had been due: its wait had no bound. Expected: the room goes to the oldest due work
// first, so a delivery waits only behind work that was due before it.
//
// Below HTTP, as webhook-claim-many-endpoints: the store's own claim, on both engines.
import { describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import { PER_ENDPOINT_CONCURRENCY } from '../../src/commerce/webhooks/dispatcher.js';
import { checkoutUpdated, sandboxEndpoint } from '../commerce/webhook-rows.js';
import { databaseForFile } from '../helpers/file-database.js';

const minute = (m: number) => new Date(Date.UTC(2026, 0, 1, 0, m)).toISOString();

describe('a claim with less room than endpoints due', () => {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-claim-oldest-');

  /** Endpoint `id` of acct_1 with one pending delivery due at each minute in `dueAt`. */
  const endpointWithDeliveries = (id: string, dueAt: readonly number[]) =>
    opened.db.transaction(async (tx) => {
      const t = commerceStores(tx).webhooks;
      await t.insertEndpoint(sandboxEndpoint(id, `https://hooks.example.com/${id}`, minute(0)));
      for (const m of dueAt) {
        await t.insertEvent(checkoutUpdated(`evt_${id}_${m}`, minute(m)));
        await t.insertDeliveries(
          [{ id: `del_${id}_${m}`, event_id: `evt_${id}_${m}`, endpoint_id: id }],
          minute(m),
        );
      }
    });

  const claim = (owner: string, limit: number) =>
    opened.db.transaction((tx) =>
      commerceStores(tx).webhooks.claimDue(minute(30), minute(40), owner, {
        limit,
        perEndpoint: PER_ENDPOINT_CONCURRENCY,
        dialect: opened.db.dialect,
      }),
    );

  it('gives the room to the delivery due first, not to the endpoint whose id sorts first', async () => {
    // A busy endpoint sorting first, with a backlog due since minutes 2 to 9, and a quiet one
    // sorting last, whose one delivery has been due since minute 1.
    await endpointWithDeliveries('we_0000', [2, 3, 4, 5, 6, 7, 8, 9]);
    await endpointWithDeliveries('we_zzzz', [1]);
    // The dispatcher under load: one slot free at a time.
    const first = await claim('one', 1);
    expect(first.map((d) => d.id)).toEqual(['del_we_zzzz_1']);
    const next = await claim('two', 2);
    expect(next.map((d) => d.id)).toEqual(['del_we_0000_2', 'del_we_0000_3']);
  }, 60_000);
});
