import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commerceMigrations } from '../../src/commerce/db/migrations.js';
import { openServiceDatabase } from '../../src/platform/db/open.js';
import type { SqlExecutor } from '../../src/platform/db/sql.js';
import { type BuiltServer, killHard as kill, startBuilt } from '../helpers/built-server.js';
import { binFiles, cli, runCliAsync } from '../helpers/cli.js';
import { ADDRESS, as, BUYER, type Call, sandboxUser } from './helpers.js';

/**
 * kill -9 during keyed confirms, over many rounds, on the built server (`svc-server start`).
 * The `slow-order` sandbox product makes the store take ~50 ms around recording the order, so
 * kills land before the key is claimed, between the claim and the confirm, during the store
 * call (before and after the store records the order), and after the order is committed.
 * After each restart on the same data directory every checkout must reach a final state (start-up
 * recovery, no sleeping), a retry with the same key must give the original outcome, and no
 * checkout may get two orders. A second instance (B) runs beside A on the same database the whole
 * time and is never killed: it answers half of the retries, while A's start-up recovery may still
 * be finishing the same checkouts. Both engines (on PostgreSQL the database outlives the process,
 * so the kill tests the rows and leases alone, not a file's journal).
 */
// Each round costs a server start (seconds on a loaded machine), so a round confirms several
// checkouts, staggered, and the rounds move the kill point along the confirm.
const ROUNDS = 5;
const PER_ROUND = 8;
const PRODUCT = 'https://protocol-shop.sandbox.test/products/slow-order-kettle';

interface Confirm {
  checkoutId: string;
  key: string;
  /** The answer, when it arrived before the kill. */
  first: { status: number; body: any } | null;
}

const FINAL = new Set(['completed', 'failed']);

describe('kill -9 during confirm', () => {
  // A dot-folder in the data directory's path, as the house rules ask.
  const files = binFiles('.svc-crash-');
  let key: string;
  let server: BuiltServer | null = null;
  let beside: BuiltServer | null = null;
  const confirms: Confirm[] = [];
  const afterKill = { notRun: 0, confirming: 0, placedNotRecorded: 0, finishedNotAnswered: 0, answered: 0 };
  const start = () => startBuilt('commerce', files.env());

  beforeAll(async () => {
    if (!existsSync(cli))
      throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
    const res = await runCliAsync(
      ['keys', 'create', '--service', 'commerce', '--env', 'sandbox', '--name', 'crash'],
      files.env(),
    );
    if (res.status !== 0) throw new Error(`keys create: ${res.stderr}`);
    key = res.stdout.trim();
    beside = await start();
  });

  afterAll(async () => {
    await Promise.all([server && kill(server), beside && kill(beside)]);
  });

  /** What the database holds, read beside the servers (on SQLite, through the same file). */
  async function inspect<T>(fn: (db: SqlExecutor) => Promise<T>): Promise<T> {
    const env = files.env();
    const db = await openServiceDatabase({
      service: 'commerce',
      dataDir: files.dataDir,
      databaseUrl: env.SERVICE_DATABASE_URL,
      poolSize: 2,
      migrations: commerceMigrations,
    });
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  }

  /** After a restart: every checkout of the last round ends, and its key answers with its outcome. */
  async function checkRound(call: Call, callB: Call, round: Confirm[]) {
    for (const [i, c] of round.entries()) {
      const retryOn = i % 2 ? callB : call;
      // Start-up recovery runs as the server starts; poll it (each GET is one quick round trip).
      let checkout = (await call('GET', `/v1/checkouts/${c.checkoutId}`)).body;
      for (let i = 0; checkout.status === 'confirming' && i < 200; i++) {
        await new Promise((r) => setTimeout(r, 25));
        checkout = (await call('GET', `/v1/checkouts/${c.checkoutId}`)).body;
      }
      expect(checkout.status, `${c.checkoutId} after restart`).not.toBe('confirming');

      const retry = await retryOn('POST', `/v1/checkouts/${c.checkoutId}/confirm`, undefined, {
        'idempotency-key': c.key,
      });
      expect(retry.status, JSON.stringify(retry.body)).toBe(200);
      expect(FINAL.has(retry.body.status), retry.body.status).toBe(true);
      if (c.first) expect(retry.body).toEqual(c.first.body);
      const final = (await call('GET', `/v1/checkouts/${c.checkoutId}`)).body;
      expect(retry.body).toEqual(final);
      const again = await call('POST', `/v1/checkouts/${c.checkoutId}/confirm`, undefined, {
        'idempotency-key': c.key,
      });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(final);
    }
  }

  it('finishes every checkout after a restart, answers retries with the outcome, never orders twice', async () => {
    let userToken: string | null = null;
    let previous: Confirm[] = [];
    for (let round = 0; round <= ROUNDS; round++) {
      server = await start();
      if (!userToken) userToken = (await sandboxUser(server, key)).userToken;
      const call = as(server, key, userToken);
      await checkRound(call, as(beside as BuiltServer, key, userToken), previous);
      if (round === ROUNDS) break;

      const ready = await Promise.all(
        Array.from({ length: PER_ROUND }, async (_, i) => {
          const made = await call('POST', '/v1/checkouts', {
            product_url: `${PRODUCT}-${round}-${i}`,
            buyer: BUYER,
            shipping_address: ADDRESS,
          });
          expect(made.body.status).toBe('ready_to_confirm');
          return made.body.id as string;
        }),
      );
      const current: Confirm[] = ready.map((checkoutId, i) => ({
        checkoutId,
        key: `crash-${round}-${i}`,
        first: null,
      }));
      const inFlight = current.map(async (c, i) => {
        await new Promise((r) => setTimeout(r, i * 5));
        try {
          const res = await call('POST', `/v1/checkouts/${c.checkoutId}/confirm`, undefined, {
            'idempotency-key': c.key,
          });
          c.first = { status: res.status, body: res.body };
        } catch {
          // The server died mid-request: no answer.
        }
      });
      // Rounds walk the kill point across the whole confirm, plus some jitter, from the moment the
      // first confirm reached the database: a fixed delay from the send killed most PostgreSQL
      // rounds before any confirm had begun (a request takes longer to get there).
      await inspect(async (db) => {
        for (let i = 0; i < 2_500; i++) {
          const open = await db.get<{ n: number }>(
            "SELECT COUNT(*) AS n FROM checkouts WHERE status = 'confirming'",
          );
          if (Number(open?.n) > 0) return;
          await new Promise((r) => setTimeout(r, 2));
        }
      });
      await new Promise((r) => setTimeout(r, round * 25 + Math.random() * 15));
      await kill(server);
      server = null;
      await Promise.all(inFlight);

      await inspect(async (db) => {
        for (const c of current) {
          const row = await db.get<{ status: string }>('SELECT status FROM checkouts WHERE id = ?', [
            c.checkoutId,
          ]);
          const placed = await db.get('SELECT 1 AS one FROM sandbox_store_orders WHERE checkout_id = ?', [
            c.checkoutId,
          ]);
          const status = row?.status;
          if (c.first) afterKill.answered++;
          if (status === 'confirming') afterKill.confirming++;
          if (status === 'confirming' && placed) afterKill.placedNotRecorded++;
          if (status === 'ready_to_confirm') afterKill.notRun++;
          if (status && FINAL.has(status) && !c.first) afterKill.finishedNotAnswered++;
        }
      });
      for (const c of current) if (c.first) expect(c.first.status).toBe(200);
      confirms.push(...current);
      previous = current;
    }

    // The kills really landed inside the confirm, store call included; otherwise this proves nothing.
    expect(afterKill.confirming).toBeGreaterThan(0);

    await inspect(async (db) => {
      const twice = await db.all(
        'SELECT checkout_id, COUNT(*) AS n FROM orders GROUP BY checkout_id HAVING COUNT(*) > 1',
      );
      expect(twice).toEqual([]);
      for (const c of confirms) {
        const row = await db.get<{ status: string; order_id: string | null; error: string | null }>(
          'SELECT status, order_id, error FROM checkouts WHERE id = ?',
          [c.checkoutId],
        );
        const orders = await db.all<{ id: string; merchant_order_ref: string }>(
          'SELECT id, merchant_order_ref FROM orders WHERE checkout_id = ?',
          [c.checkoutId],
        );
        const ledger = await db.get<{ merchant_order_ref: string }>(
          'SELECT merchant_order_ref FROM sandbox_store_orders WHERE checkout_id = ?',
          [c.checkoutId],
        );
        const events = async (type: string) =>
          (await db.all<{ data: string }>('SELECT data FROM events WHERE type = ?', [type])).filter(
            (e) => JSON.parse(e.data).id === c.checkoutId || JSON.parse(e.data).checkout_id === c.checkoutId,
          ).length;
        if (row?.status === 'completed') {
          // One order, the one the store placed, announced once.
          expect(orders).toEqual([{ id: row.order_id, merchant_order_ref: ledger?.merchant_order_ref }]);
          expect(await events('checkout.completed')).toBe(1);
          expect(await events('order.updated')).toBe(1);
        } else {
          // Failed only when the store has no order: nothing was placed behind the user's back.
          expect(row?.status).toBe('failed');
          expect(orders).toEqual([]);
          expect(ledger).toBeUndefined();
          expect(JSON.parse(row?.error ?? '{}').code).toBe('ORDER_NOT_PLACED');
          expect(await events('checkout.failed')).toBe(1);
        }
      }
      const open = await db.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM idempotency_keys WHERE state = 'in_flight'",
      );
      expect(Number(open?.n)).toBe(0);
    });
    console.info('after kill -9:', afterKill, 'of', confirms.length, 'confirms');
  }, 120_000);
});
