import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { openTestDatabase, type TestDatabase } from '../helpers/database.js';
import { interleave, settledValue } from '../helpers/race.js';
import { removeTempDataDir, tempDataDir } from '../helpers/start.js';

/**
 * Two dispatchers (two instances) claiming due webhook deliveries from one database. Each selects
 * what is due, then takes leases: on an engine that does not serialise whole transactions, both
 * can select the same delivery before either writes, so the lease must be taken by a statement
 * that re-checks it, or the delivery is sent twice at once.
 */
describe('claiming due webhook deliveries from two instances', () => {
  const dir = tempDataDir('svc-claim-');
  let opened: TestDatabase;
  let one: SqlDatabase;
  let two: SqlDatabase;
  beforeAll(async () => {
    opened = await openTestDatabase('commerce', commerceMigrations, dir);
    one = opened.db;
    two = await opened.another();
  });
  afterAll(async () => {
    await opened.close();
    removeTempDataDir(dir);
  });

  it('each due delivery is claimed by one dispatcher, never by both', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    const s = commerceStores(one);
    await s.webhooks.insertEndpoint({
      id: 'we_1',
      account_id: 'acct_1',
      env: 'sandbox',
      url: 'https://hooks.example.com/',
      secret: 'whsec_x',
      created_at: at,
    });
    for (const n of [1, 2, 3]) {
      await s.webhooks.insertEvent({
        id: `evt_${n}`,
        account_id: 'acct_1',
        env: 'sandbox',
        type: 'checkout.updated',
        data: {},
        created_at: at,
      });
      await s.webhooks.insertDelivery({ id: `del_${n}`, event_id: `evt_${n}`, endpoint_id: 'we_1', at });
    }
    const claim = (db: SqlDatabase) =>
      commerceStores(db).webhooks.claimDue(
        '2026-01-01T00:01:00.000Z',
        '2026-01-01T00:02:00.000Z',
        db === one ? 'claimer-one' : 'claimer-two',
        {
          limit: 10,
          perEndpoint: 10,
          dialect: db.dialect,
        },
      );
    // The second dispatcher selects the due deliveries, the first claims them, then the second writes.
    const race = interleave(one, two);
    const [first, second] = await race.run(
      () => claim(one),
      () => claim(two),
    );
    const ids = [...settledValue(first), ...settledValue(second)].map((d) => d.id).sort();
    expect(ids).toEqual(['del_1', 'del_2', 'del_3']);
  });
});
