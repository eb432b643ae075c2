// Outside review of the thirteenth pass found three claim defects with many endpoints due; all
// three failed here on the old code and are fixed in commerce/db/webhooks-store.ts.
//
// 1. (PostgreSQL) A claim first lists the endpoints with due
// work, `ORDER BY id LIMIT CLAIM_ENDPOINTS`, and only then asks how much room each has. An
// endpoint whose attempts in flight already fill its limit (a receiver that hangs until the
// timeout) still has due work, so it keeps its place in that list while getting nothing from the
// claim. CLAIM_ENDPOINTS such endpoints sorting before another endpoint starve it: its deliveries
// wait for as long as they hang, on every instance, whatever room the dispatcher has. SQLite lists
// every endpoint (no LIMIT) and is not affected.
//
// 2. (SQLite) The claim's lease statement is one compound SELECT with a term per endpoint that
// gets room (`leaseOnSqlite`), and SQLite refuses a compound SELECT of more than 500 terms
// (SQLITE_MAX_COMPOUND_SELECT). A claim hands out up to MAX_CONCURRENCY attempts, one endpoint at
// a time; since PER_ENDPOINT_CONCURRENCY went from 16 to 32 that is 512. With more than 500
// endpoints due at once (32 accounts of 16 endpoints each), every claim failed ("too many terms in
// compound SELECT") and no webhook went out at all, for any account, until the backlog shrank.
//
// 3. (PostgreSQL) The same claim takes at most CLAIM_ENDPOINTS (256) endpoints, which its comment
// says is MAX_CONCURRENCY: it was, before PER_ENDPOINT_CONCURRENCY doubled. With 512 endpoints due
// a claim now sends to half of them (expected 512, got 256): the comment is stale and the
// dispatcher's room is half used. CLAIM_ENDPOINTS could be MAX_CONCURRENCY itself.
//
// Fixed: PostgreSQL's list leaves out endpoints already at their limit, and locks at most the
// claim's own limit of endpoints (CLAIM_ENDPOINTS is now a ceiling of 512); SQLite leases in parts
// of at most 250 endpoints.
//
// Below HTTP: the store's own claim with the dispatcher's limits, on both engines.
import { describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { commerceStores } from '../../src/commerce/db/stores.js';
import { CLAIM_ENDPOINTS } from '../../src/commerce/db/webhooks-store.js';
import { MAX_CONCURRENCY, PER_ENDPOINT_CONCURRENCY } from '../../src/commerce/webhooks/dispatcher.js';
import { checkoutUpdated, sandboxEndpoint } from '../commerce/webhook-rows.js';
import { databaseForFile } from '../helpers/file-database.js';

const at = '2026-01-01T00:00:00.000Z';

/** A fresh commerce database for the describe, with rows and claims on it. */
function claimsOnFreshDatabase() {
  const opened = databaseForFile('commerce', commerceMigrations, 'svc-claim-many-');

  /** Endpoints of acct_1, each with one pending delivery per number (`del_<endpoint>_<n>`). */
  const withDeliveries = (endpoints: readonly string[], numbers: readonly number[]) =>
    opened.db.transaction(async (tx) => {
      const t = commerceStores(tx).webhooks;
      for (const id of endpoints) {
        await t.insertEndpoint(sandboxEndpoint(id, `https://hooks.example.com/${id}`, at));
        for (const n of numbers) {
          await t.insertEvent(checkoutUpdated(`evt_${id}_${n}`, at));
          await t.insertDelivery({ id: `del_${id}_${n}`, event_id: `evt_${id}_${n}`, endpoint_id: id, at });
        }
      }
    });

  /** One claim of up to `limit` attempts, `perEndpoint` in flight per endpoint, as `owner`. */
  const claim = (owner: string, limit: number, perEndpoint: number) =>
    opened.db.transaction((tx) =>
      commerceStores(tx).webhooks.claimDue('2026-01-01T00:01:00.000Z', '2026-01-01T00:09:00.000Z', owner, {
        limit,
        perEndpoint,
        dialect: opened.db.dialect,
      }),
    );
  return { withDeliveries, claim };
}

/** `n` endpoint ids in the order they sort: `we_0000`, `we_0001`, … */
const endpointIds = (n: number) => Array.from({ length: n }, (_, i) => `we_${String(i).padStart(4, '0')}`);

describe('a claim when many endpoints are at their limit (PostgreSQL)', () => {
  const { withDeliveries, claim } = claimsOnFreshDatabase();

  it('still claims for an endpoint with room that sorts after them', async () => {
    await withDeliveries(endpointIds(CLAIM_ENDPOINTS), [1, 2]);
    // Each of those endpoints' first delivery goes out and hangs: one in flight, its limit, one due.
    expect(await claim('hung', CLAIM_ENDPOINTS, 1)).toHaveLength(CLAIM_ENDPOINTS);
    // Then an endpoint whose id sorts after all of them gets a delivery. There is room in all,
    // and only it has room of its own.
    await withDeliveries(['we_zzzz'], [1]);
    const next = await claim('next', CLAIM_ENDPOINTS, 1);
    expect(next.map((d) => d.id)).toEqual(['del_we_zzzz_1']);
  }, 60_000);
});

describe('a claim when more endpoints are due than one claim sends to', () => {
  const { withDeliveries, claim } = claimsOnFreshDatabase();

  it('claims one attempt for each of MAX_CONCURRENCY endpoints', async () => {
    await withDeliveries(endpointIds(MAX_CONCURRENCY), [1]);
    const got = await claim('one', MAX_CONCURRENCY, PER_ENDPOINT_CONCURRENCY);
    expect(got).toHaveLength(MAX_CONCURRENCY);
  }, 60_000);
});
