import { fromJson } from '../../platform/db/json.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import type { CheckoutStatus, LineItem, OrderStatus, Totals } from '../schemas/common.js';
import type { CommerceEnv } from './api-keys-store.js';
import type { EventRecord } from './webhooks-store.js';

/** What the operator narrows the dashboard's purchases to. Every field is already validated. */
export interface PurchaseFilter {
  env?: CommerceEnv | undefined;
  /** A checkout or order status. */
  status?: string | undefined;
  /** The client's own user id (what the operator knows) or the user's `usr_…` id. */
  user?: string | undefined;
  /** Inclusive lower bound on created_at, an ISO instant. */
  from?: string | undefined;
  /** Exclusive upper bound on created_at, an ISO instant. */
  before?: string | undefined;
  limit: number;
}

export interface CheckoutRow {
  id: string;
  env: CommerceEnv;
  user_id: string;
  client_user_id: string;
  merchant_id: string;
  product_url: string;
  status: CheckoutStatus;
  line_items: LineItem[];
  totals: Totals;
  order_id: string | null;
  merchant_messages: string[];
  created_at: string;
  updated_at: string;
}

export interface OrderRow {
  id: string;
  env: CommerceEnv;
  user_id: string;
  client_user_id: string;
  checkout_id: string;
  merchant_id: string;
  status: OrderStatus;
  line_items: LineItem[];
  totals: Totals;
  merchant_order_ref: string;
  created_at: string;
  updated_at: string;
}

export interface UserRow {
  id: string;
  env: CommerceEnv;
  client_user_id: string;
  created_at: string;
  checkouts: number;
  orders: number;
}

/**
 * WHERE clauses for the lists; `t` is the listed table's alias, `u` its user. Users have no
 * status, so `withStatus` is false for them.
 */
function purchaseWhere(t: string, accountId: string, f: PurchaseFilter, withStatus = true) {
  const clauses: [string, (string | number)[]][] = [[`${t}.account_id = ?`, [accountId]]];
  if (f.env) clauses.push([`${t}.env = ?`, [f.env]]);
  if (f.status && withStatus) clauses.push([`${t}.status = ?`, [f.status]]);
  if (f.user) clauses.push(['(u.client_user_id = ? OR u.id = ?)', [f.user, f.user]]);
  if (f.from) clauses.push([`${t}.created_at >= ?`, [f.from]]);
  if (f.before) clauses.push([`${t}.created_at < ?`, [f.before]]);
  return { where: clauses.map(([c]) => c).join(' AND '), params: clauses.flatMap(([, p]) => p) };
}

const CHECKOUT_SELECT = `SELECT t.id, t.env, t.user_id, u.client_user_id, t.merchant_id, t.product_url, t.status,
    t.line_items, t.totals, t.order_id, t.merchant_messages, t.created_at, t.updated_at
  FROM checkouts t JOIN users u ON u.id = t.user_id`;
const ORDER_SELECT = `SELECT t.id, t.env, t.user_id, u.client_user_id, t.checkout_id, t.merchant_id, t.status,
    t.line_items, t.totals, t.merchant_order_ref, t.created_at, t.updated_at
  FROM orders t JOIN users u ON u.id = t.user_id`;
const CHECKOUT_JSON = ['line_items', 'totals', 'merchant_messages'];
const ORDER_JSON = ['line_items', 'totals'];

const decoded = <T>(row: Record<string, unknown>, columns: string[]): T => {
  const out = { ...row };
  for (const c of columns) out[c] = fromJson(row[c]);
  return out as T;
};

/**
 * The operator's read-only view of what was bought, across users and environments of one
 * account. Every query names the account, so an id from another account is "not found".
 */
export function dashboardStore(db: SqlExecutor) {
  return {
    async listCheckouts(accountId: string, f: PurchaseFilter): Promise<CheckoutRow[]> {
      const { where, params } = purchaseWhere('t', accountId, f);
      const rows = await db.all<Record<string, unknown>>(
        `${CHECKOUT_SELECT} WHERE ${where} ORDER BY t.created_at DESC, t.id DESC LIMIT ?`,
        [...params, f.limit],
      );
      return rows.map((r) => decoded<CheckoutRow>(r, CHECKOUT_JSON));
    },
    async listOrders(accountId: string, f: PurchaseFilter): Promise<OrderRow[]> {
      const { where, params } = purchaseWhere('t', accountId, f);
      const rows = await db.all<Record<string, unknown>>(
        `${ORDER_SELECT} WHERE ${where} ORDER BY t.created_at DESC, t.seq DESC LIMIT ?`,
        [...params, f.limit],
      );
      return rows.map((r) => decoded<OrderRow>(r, ORDER_JSON));
    },
    /** Users with how many checkouts and orders they made. */
    async listUsers(accountId: string, f: PurchaseFilter): Promise<UserRow[]> {
      const { where, params } = purchaseWhere('u', accountId, f, false);
      const rows = await db.all<UserRow>(
        `SELECT u.id, u.env, u.client_user_id, u.created_at,
                (SELECT COUNT(*) FROM checkouts c WHERE c.user_id = u.id) AS checkouts,
                (SELECT COUNT(*) FROM orders o WHERE o.user_id = u.id) AS orders
           FROM users u
          WHERE ${where}
          ORDER BY u.created_at DESC, u.id DESC
          LIMIT ?`,
        [...params, f.limit],
      );
      // PostgreSQL answers COUNT(*) as a bigint string.
      return rows.map((r) => ({ ...r, checkouts: Number(r.checkouts), orders: Number(r.orders) }));
    },
    async getCheckout(accountId: string, id: string): Promise<CheckoutRow | undefined> {
      const row = await db.get<Record<string, unknown>>(
        `${CHECKOUT_SELECT} WHERE t.account_id = ? AND t.id = ?`,
        [accountId, id],
      );
      return row && decoded<CheckoutRow>(row, CHECKOUT_JSON);
    },
    async getOrder(accountId: string, id: string): Promise<OrderRow | undefined> {
      const row = await db.get<Record<string, unknown>>(
        `${ORDER_SELECT} WHERE t.account_id = ? AND t.id = ?`,
        [accountId, id],
      );
      return row && decoded<OrderRow>(row, ORDER_JSON);
    },
    /**
     * Events of one environment about a checkout (its own events, and its order's) or an order
     * (its own, and its checkout's once it names the order), newest first. Read through the
     * subject columns' indexes (migration 014): the rows of that one object, however many events
     * the environment has.
     */
    async eventsAbout(
      accountId: string,
      env: CommerceEnv,
      subject: { checkout_id: string } | { order_id: string },
      limit: number,
    ) {
      const [column, id] =
        'checkout_id' in subject
          ? (['checkout_id', subject.checkout_id] as const)
          : (['order_id', subject.order_id] as const);
      return db.all<Omit<EventRecord, 'data' | 'account_id'>>(eventsAboutSql(column), [
        id,
        accountId,
        env,
        limit,
      ]);
    },
  };
}

/** The trail's query; exported so a test can show its plan reads through the index. */
export const eventsAboutSql = (column: 'checkout_id' | 'order_id') =>
  `SELECT id, env, type, created_at FROM events
    WHERE ${column} = ? AND account_id = ? AND env = ?
    ORDER BY created_at DESC, seq DESC
    LIMIT ?`;
