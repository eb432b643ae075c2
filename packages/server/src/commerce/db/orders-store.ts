import { fromJson, toJson } from '../../platform/db/json.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import type { LineItem, OrderStatus, ShippingAddress, Totals } from '../schemas/common.js';
import type { CommerceEnv } from './api-keys-store.js';

export interface OrderRecord {
  id: string;
  account_id: string;
  env: CommerceEnv;
  user_id: string;
  checkout_id: string;
  merchant_id: string;
  status: OrderStatus;
  line_items: LineItem[];
  totals: Totals;
  shipping_address: ShippingAddress;
  merchant_order_ref: string;
  created_at: string;
  updated_at: string;
}

type Row = Omit<OrderRecord, 'line_items' | 'totals' | 'shipping_address'> & {
  line_items: string;
  totals: string;
  shipping_address: string;
};

const fromRow = (r: Row): OrderRecord => ({
  id: r.id,
  account_id: r.account_id,
  env: r.env,
  user_id: r.user_id,
  checkout_id: r.checkout_id,
  merchant_id: r.merchant_id,
  status: r.status,
  line_items: fromJson(r.line_items),
  totals: fromJson(r.totals),
  shipping_address: fromJson(r.shipping_address),
  merchant_order_ref: r.merchant_order_ref,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const SELECT =
  'SELECT id, account_id, env, user_id, checkout_id, merchant_id, status, line_items, totals, shipping_address, merchant_order_ref, created_at, updated_at FROM orders';

export function ordersStore(db: SqlExecutor) {
  return {
    async insert(o: OrderRecord): Promise<void> {
      await db.run(
        `INSERT INTO orders (id, account_id, env, user_id, checkout_id, merchant_id, status, line_items, totals,
           total_amount, currency, shipping_address, merchant_order_ref, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          o.id,
          o.account_id,
          o.env,
          o.user_id,
          o.checkout_id,
          o.merchant_id,
          o.status,
          toJson(o.line_items),
          toJson(o.totals),
          o.totals.total.amount,
          o.totals.total.currency,
          toJson(o.shipping_address),
          o.merchant_order_ref,
          o.created_at,
          o.updated_at,
        ],
      );
    },
    async findForUser(owner: { accountId: string; env: CommerceEnv; userId: string }, id: string) {
      const row = await db.get<Row>(`${SELECT} WHERE id = ? AND account_id = ? AND env = ? AND user_id = ?`, [
        id,
        owner.accountId,
        owner.env,
        owner.userId,
      ]);
      return row && fromRow(row);
    },
    async listForUser(userId: string, limit: number): Promise<OrderRecord[]> {
      const rows = await db.all<Row>(
        `${SELECT} WHERE user_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?`,
        [userId, limit],
      );
      return rows.map(fromRow);
    },
    /** Moves the order from `from` to `to`; false when it was no longer `from` (nothing written). */
    async moveStatus(id: string, from: OrderStatus, to: OrderStatus, at: string): Promise<boolean> {
      const r = await db.run('UPDATE orders SET status = ?, updated_at = ? WHERE id = ? AND status = ?', [
        to,
        at,
        id,
        from,
      ]);
      return r.changes > 0;
    },
    /** What the user spent since `since` in one currency; canceled orders do not count. */
    async spentSince(userId: string, since: string, currency: string): Promise<number> {
      // SUM of a BIGINT is NUMERIC on PostgreSQL, which its driver hands over as a string.
      const row = await db.get<{ total: number | string | null }>(
        `SELECT COALESCE(SUM(total_amount), 0) AS total FROM orders
          WHERE user_id = ? AND created_at > ? AND currency = ? AND status != 'canceled'`,
        [userId, since, currency],
      );
      return Number(row?.total ?? 0);
    },
  };
}
