import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, killHard as kill, startBuilt } from '../helpers/built-server.js';
import { cli } from '../helpers/cli.js';
import { ADDRESS, as, BUYER, type Call, sandboxUser } from './helpers.js';

/**
 * kill -9 during keyed confirms, over many rounds, on the built server (`svc-server start`).
 * The `slow-order` sandbox product makes the store take ~50 ms around recording the order, so
 * kills land before the key is claimed, between the claim and the confirm, during the store
 * call (before and after the store records the order), and after the order is committed.
 * After each restart on the same data directory every checkout must reach a final state (start-up
 * recovery, no sleeping), a retry with the same key must give the original outcome, and no
 * checkout may get two orders.
 */
// Each round costs a server start (seconds on a loaded machine), so a round confirms several
// checkouts, staggered, and the rounds move the kill point along the confirm.
const ROUNDS = 5;
const PER_ROUND = 8;
const PRODUCT = 'https://protocol-shop.sandbox.test/products/slow-order-kettle';

const start = (dataDir: string) => startBuilt('commerce', { SERVICE_DATA_DIR: dataDir });

interface Confirm {
  checkoutId: string;
  key: string;
  /** The answer, when it arrived before the kill. */
  first: { status: number; body: any } | null;
}

const FINAL = new Set(['completed', 'failed']);

describe('kill -9 during confirm', () => {
  let dataDir: string;
  let key: string;
  let server: BuiltServer | null = null;
  const confirms: Confirm[] = [];
  const afterKill = { notRun: 0, confirming: 0, placedNotRecorded: 0, finishedNotAnswered: 0, answered: 0 };

  beforeAll(() => {
    if (!existsSync(cli))
      throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-'));
    const res = spawnSync(
      process.execPath,
      [cli, 'keys', 'create', '--service', 'commerce', '--env', 'sandbox', '--name', 'crash'],
      { env: { ...process.env, SERVICE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, encoding: 'utf8' },
    );
    if (res.status !== 0) throw new Error(`keys create: ${res.stderr}`);
    key = res.stdout.trim();
  });

  afterAll(async () => {
    if (server) await kill(server);
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** What the data directory holds while no server runs. */
  function inspect<T>(fn: (db: Database.Database) => T): T {
    const db = new Database(join(dataDir, 'commerce.sqlite'), { readonly: true });
    try {
      return fn(db);
    } finally {
      db.close();
    }
  }

  /** After a restart: every checkout of the last round ends, and its key answers with its outcome. */
  async function checkRound(call: Call, round: Confirm[]) {
    for (const c of round) {
      // Start-up recovery runs as the server starts; poll it (each GET is one quick round trip).
      let checkout = (await call('GET', `/v1/checkouts/${c.checkoutId}`)).body;
      for (let i = 0; checkout.status === 'confirming' && i < 200; i++) {
        await new Promise((r) => setTimeout(r, 25));
        checkout = (await call('GET', `/v1/checkouts/${c.checkoutId}`)).body;
      }
      expect(checkout.status, `${c.checkoutId} after restart`).not.toBe('confirming');

      const retry = await call('POST', `/v1/checkouts/${c.checkoutId}/confirm`, undefined, {
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
      server = await start(dataDir);
      if (!userToken) userToken = (await sandboxUser(server, key)).userToken;
      const call = as(server, key, userToken);
      await checkRound(call, previous);
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
      // Rounds walk the kill point across the whole confirm, plus some jitter.
      await new Promise((r) => setTimeout(r, 10 + round * 40 + Math.random() * 15));
      await kill(server);
      server = null;
      await Promise.all(inFlight);

      inspect((db) => {
        for (const c of current) {
          const row = db.prepare('SELECT status FROM checkouts WHERE id = ?').get(c.checkoutId) as {
            status: string;
          };
          const placed = db
            .prepare('SELECT 1 FROM sandbox_store_orders WHERE checkout_id = ?')
            .get(c.checkoutId);
          if (c.first) afterKill.answered++;
          if (row.status === 'confirming') afterKill.confirming++;
          if (row.status === 'confirming' && placed) afterKill.placedNotRecorded++;
          if (row.status === 'ready_to_confirm') afterKill.notRun++;
          if (FINAL.has(row.status) && !c.first) afterKill.finishedNotAnswered++;
        }
      });
      for (const c of current) if (c.first) expect(c.first.status).toBe(200);
      confirms.push(...current);
      previous = current;
    }

    // The kills really landed inside the confirm, store call included; otherwise this proves nothing.
    expect(afterKill.confirming).toBeGreaterThan(0);

    inspect((db) => {
      const twice = db
        .prepare('SELECT checkout_id, COUNT(*) AS n FROM orders GROUP BY checkout_id HAVING n > 1')
        .all();
      expect(twice).toEqual([]);
      for (const c of confirms) {
        const row = db
          .prepare('SELECT status, order_id, error FROM checkouts WHERE id = ?')
          .get(c.checkoutId) as {
          status: string;
          order_id: string | null;
          error: string | null;
        };
        const orders = db
          .prepare('SELECT id, merchant_order_ref FROM orders WHERE checkout_id = ?')
          .all(c.checkoutId) as { id: string; merchant_order_ref: string }[];
        const ledger = db
          .prepare('SELECT merchant_order_ref FROM sandbox_store_orders WHERE checkout_id = ?')
          .get(c.checkoutId) as { merchant_order_ref: string } | undefined;
        const events = (type: string) =>
          (db.prepare('SELECT data FROM events WHERE type = ?').all(type) as { data: string }[]).filter(
            (e) => JSON.parse(e.data).id === c.checkoutId || JSON.parse(e.data).checkout_id === c.checkoutId,
          ).length;
        if (row.status === 'completed') {
          // One order, the one the store placed, announced once.
          expect(orders).toEqual([{ id: row.order_id, merchant_order_ref: ledger?.merchant_order_ref }]);
          expect(events('checkout.completed')).toBe(1);
          expect(events('order.updated')).toBe(1);
        } else {
          // Failed only when the store has no order: nothing was placed behind the user's back.
          expect(row.status).toBe('failed');
          expect(orders).toEqual([]);
          expect(ledger).toBeUndefined();
          expect(JSON.parse(row.error ?? '{}').code).toBe('ORDER_NOT_PLACED');
          expect(events('checkout.failed')).toBe(1);
        }
      }
      const open = db
        .prepare("SELECT COUNT(*) AS n FROM idempotency_keys WHERE state = 'in_flight'")
        .get() as {
        n: number;
      };
      expect(open.n).toBe(0);
    });
    console.info('after kill -9:', afterKill, 'of', confirms.length, 'confirms');
  }, 120_000);
});
