import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommerceServiceHandle } from '../../src/commerce/app.js';
import { eventsAboutSql } from '../../src/commerce/db/dashboard-store.js';
import { EVENT_SUBJECTS_BACKFILL } from '../../src/commerce/db/migrations/014-event-subjects.js';
import { likeEscape } from '../../src/platform/db/like.js';
import { startTestService, type TestService } from '../helpers/start.js';
import { ADDRESS, BUYER, makeKey, PROTOCOL, sandboxUser } from './helpers.js';

/**
 * The dashboard's page of a checkout or an order lists the events about it. They were found with
 * `data LIKE '%id%'` over every event of the environment; events now name their checkout and order
 * in indexed columns (migration 014). The old query stays here as the oracle: same events, same order.
 */
describe('dashboard: the events of a checkout or an order', () => {
  let svc: TestService;
  const db = () => (svc.handle as CommerceServiceHandle).db;
  const made: { checkout: string; order: string | null }[] = [];
  let account = '';

  /** What the dashboard listed before migration 014, newest first. */
  const byLike = async (id: string) => {
    const quoted = JSON.stringify(id);
    const rows = await db().all<{ id: string; data: string }>(
      `SELECT id, data FROM events WHERE account_id = ? AND env = 'sandbox' AND data LIKE ? ESCAPE '\\'
        ORDER BY created_at DESC, seq DESC LIMIT 50`,
      [account, `%${likeEscape(quoted)}%`],
    );
    return rows.filter((r) => r.data.includes(quoted)).map((r) => r.id);
  };
  /** The event ids a dashboard page shows, in its order. */
  const shown = async (path: string) => {
    const res = await fetch(`${svc.url}${path}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const events = html.slice(html.indexOf('id="events"'), html.indexOf('id="deliveries"'));
    return [...new Set(events.match(/evt_[A-Za-z0-9]+/g) ?? [])];
  };
  const sameAsLike = async () => {
    for (const m of made) {
      const want = await byLike(m.checkout);
      expect(want.length).toBeGreaterThan(0);
      expect(await shown(`/dashboard/checkouts/${m.checkout}`)).toEqual(want);
      if (m.order) expect(await shown(`/dashboard/orders/${m.order}`)).toEqual(await byLike(m.order));
    }
  };

  beforeAll(async () => {
    svc = await startTestService('commerce');
    const key = await makeKey(svc, 'sandbox');
    const user = await sandboxUser(svc, key);
    for (const n of [1, 2, 3]) {
      const c = await user.call('POST', '/v1/checkouts', {
        product_url: `${PROTOCOL}/links-${n}-price-1500`,
        buyer: BUYER,
        shipping_address: ADDRESS,
      });
      expect(c.body.status).toBe('ready_to_confirm');
      if (n === 3) {
        made.push({ checkout: c.body.id, order: null });
        continue;
      }
      const done = await user.call('POST', `/v1/checkouts/${c.body.id}/confirm`);
      expect(done.body.status).toBe('completed');
      made.push({ checkout: c.body.id, order: done.body.order_id });
    }
    const row = await db().get<{ account_id: string }>('SELECT account_id FROM checkouts WHERE id = ?', [
      made[0]?.checkout ?? '',
    ]);
    account = row?.account_id ?? '';
  });
  afterAll(() => svc.close());

  it('lists the same events, in the same order, as the payload search did', async () => {
    await sameAsLike();
  });

  it('events written before migration 014 are linked by its backfill', async () => {
    await db().run('UPDATE events SET checkout_id = NULL, order_id = NULL');
    expect(await shown(`/dashboard/checkouts/${made[0]?.checkout}`)).toEqual([]);
    await db().run(EVENT_SUBJECTS_BACKFILL[db().dialect]);
    await sameAsLike();
  });

  it('reads only the rows of the object, through its index, however many events the environment has', async () => {
    // Thousands of other checkouts' events in the same account and environment.
    await db().run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
       INSERT INTO events (id, account_id, env, type, data, created_at, checkout_id)
       SELECT 'evt_filler' || i, ?, 'sandbox', 'checkout.updated', '{}', '2026-03-02T08:30:00.000Z', 'chk_filler' || i FROM n`,
      [account],
    );
    const params = (id: string) => [id, account, 'sandbox', 50];
    const [first] = made;
    if (db().dialect === 'sqlite') {
      for (const [column, id, index] of [
        ['checkout_id', first?.checkout, 'events_checkout'],
        ['order_id', first?.order, 'events_order'],
      ] as const) {
        const plan = await db().all<{ detail: string }>(
          `EXPLAIN QUERY PLAN ${eventsAboutSql(column)}`,
          params(id as string),
        );
        const steps = plan.map((r) => r.detail).join(' | ');
        expect(steps).toContain(`USING INDEX ${index}`);
        expect(steps).not.toMatch(/SCAN events/);
      }
    } else {
      await db().run('ANALYZE events');
      for (const [column, id] of [
        ['checkout_id', first?.checkout],
        ['order_id', first?.order],
      ] as const) {
        const [row] = await db().all<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (ANALYZE, FORMAT JSON) ${eventsAboutSql(column)}`,
          params(id as string),
        );
        // Rows each plan node looked at and threw away: a scan of the environment shows thousands.
        const plan = JSON.stringify(row?.['QUERY PLAN']);
        expect(plan).not.toContain('Seq Scan');
        const removed = [...plan.matchAll(/"Rows Removed by Filter":(\d+)/g)].map((m) => Number(m[1]));
        expect(Math.max(0, ...removed)).toBeLessThan(10);
      }
    }
    await sameAsLike();
  });
});
