import { fromFlag, toFlag } from '../../platform/db/flags.js';
import { fromJson, toJson } from '../../platform/db/json.js';
import type { SqlExecutor } from '../../platform/db/sql.js';
import type { StoreSession } from '../merchants/adapter.js';
import type {
  ApiErrorObject,
  Buyer,
  CheckoutStatus,
  LineItem,
  ShippingAddress,
  StoreRoute,
  Totals,
} from '../schemas/common.js';
import type { ApprovalRules, NextAction } from '../schemas/resources.js';
import type { CommerceEnv } from './api-keys-store.js';

export interface CheckoutRecord {
  id: string;
  /**
   * The row's version as read (migration 007); `save()` writes only on that version. Absent on a
   * record not yet inserted.
   */
  version?: number;
  account_id: string;
  env: CommerceEnv;
  user_id: string;
  merchant_id: string;
  offer_id: string | null;
  product_url: string;
  route: StoreRoute;
  status: CheckoutStatus;
  item_ref: string;
  quantity: number;
  line_items: LineItem[];
  totals: Totals;
  buyer: Buyer | null;
  shipping_address: ShippingAddress | null;
  next_action: NextAction | null;
  rules: ApprovalRules;
  requires_user_confirmation: boolean;
  user_confirmed_at: string | null;
  confirm_token_hash: string | null;
  form_token_hash: string | null;
  task_done_at: string | null;
  code_done_at: string | null;
  connection_id: string | null;
  reprice_count: number;
  confirmed_at: string | null;
  order_id: string | null;
  /** The Idempotency-Key the confirm ran under (JSON `[scope, key]`), or null. Never shown. */
  confirm_key: string | null;
  error: ApiErrorObject | null;
  /** The checkout session a protocol store keeps for this checkout (route `ucp`), or null. Never shown. */
  store_session: StoreSession | null;
  merchant_messages: string[];
  created_at: string;
  updated_at: string;
}

const JSON_COLUMNS = [
  'line_items',
  'totals',
  'buyer',
  'shipping_address',
  'next_action',
  'rules',
  'error',
  'merchant_messages',
  'store_session',
] as const;
const COLUMNS = [
  'id',
  'account_id',
  'env',
  'user_id',
  'merchant_id',
  'offer_id',
  'product_url',
  'route',
  'status',
  'item_ref',
  'quantity',
  'line_items',
  'totals',
  'buyer',
  'shipping_address',
  'next_action',
  'rules',
  'requires_user_confirmation',
  'user_confirmed_at',
  'confirm_token_hash',
  'form_token_hash',
  'task_done_at',
  'code_done_at',
  'connection_id',
  'reprice_count',
  'confirmed_at',
  'order_id',
  'confirm_key',
  'error',
  'merchant_messages',
  'store_session',
  'created_at',
  'updated_at',
] as const;

type Row = Record<string, unknown>;

/**
 * The row with its flag and JSON columns decoded. Each column is named (not looped over
 * JSON_COLUMNS): a loop reads and writes by a key that changes every turn, which V8 can only do
 * through its slowest property lookups, and this runs on every checkout read. The type of `out`
 * names every JSON column, so a column added to the list and not decoded here fails to compile.
 */
function fromRow(row: Row | undefined): CheckoutRecord | undefined {
  if (!row) return undefined;
  const out: Record<(typeof JSON_COLUMNS)[number] | 'requires_user_confirmation', unknown> = {
    ...row,
    requires_user_confirmation: fromFlag(row.requires_user_confirmation),
    line_items: fromJson(row.line_items),
    totals: fromJson(row.totals),
    buyer: fromJson(row.buyer),
    shipping_address: fromJson(row.shipping_address),
    next_action: fromJson(row.next_action),
    rules: fromJson(row.rules),
    error: fromJson(row.error),
    merchant_messages: fromJson(row.merchant_messages),
    store_session: fromJson(row.store_session),
  };
  return out as unknown as CheckoutRecord;
}

/**
 * The hosted confirm and pay links carry a bearer token (`confirm-<env>-…`), so the row keeps only
 * the token's hash (`confirm_token_hash`, what the page looks it up by), never the link: it is in
 * the answer that asked for the step and in its `checkout.requires_user_action` event.
 */
const storedAction = (a: NextAction | null): NextAction | null =>
  a?.type === 'user_confirmation' || a?.type === 'card_payment'
    ? { type: a.type, description: a.description }
    : a;

function toParams(c: CheckoutRecord) {
  return COLUMNS.map((col) => {
    const v = col === 'next_action' ? storedAction(c.next_action) : c[col];
    if ((JSON_COLUMNS as readonly string[]).includes(col)) return toJson(v);
    if (typeof v === 'boolean') return toFlag(v);
    return v as string | number | null;
  });
}

export function checkoutsStore(db: SqlExecutor) {
  return {
    async insert(c: CheckoutRecord): Promise<void> {
      await db.run(
        `INSERT INTO checkouts (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`,
        toParams(c),
      );
    },
    /**
     * Writes the whole checkout only if the row is still at the version `c` was read with, and
     * moves it to the next version. False when another write landed since that read: nothing
     * was written, and the caller says so (409) rather than putting the older state back.
     */
    async save(c: CheckoutRecord): Promise<boolean> {
      if (c.version === undefined)
        throw new Error(`checkout ${c.id}: save() needs the version it was read with`);
      const sets = COLUMNS.filter((col) => col !== 'id').map((col) => `${col} = ?`);
      const params = toParams(c);
      const r = await db.run(
        `UPDATE checkouts SET ${sets.join(', ')}, version = version + 1 WHERE id = ? AND version = ?`,
        [...params.slice(1), c.id, c.version],
      );
      return r.changes > 0;
    },
    /** The user's own checkout or nothing: another user's, account's or environment's is "not found". */
    async findForUser(
      owner: { accountId: string; env: CommerceEnv; userId: string },
      id: string,
    ): Promise<CheckoutRecord | undefined> {
      return fromRow(
        await db.get<Row>(
          'SELECT * FROM checkouts WHERE id = ? AND account_id = ? AND env = ? AND user_id = ?',
          [id, owner.accountId, owner.env, owner.userId],
        ),
      );
    },
    async findByConfirmToken(tokenHash: string): Promise<CheckoutRecord | undefined> {
      return fromRow(await db.get<Row>('SELECT * FROM checkouts WHERE confirm_token_hash = ?', [tokenHash]));
    },
    async listWaitingOnConnection(connectionId: string): Promise<CheckoutRecord[]> {
      const rows = await db.all<Row>(
        "SELECT * FROM checkouts WHERE connection_id = ? AND status IN ('building', 'requires_user_action', 'ready_to_confirm')",
        [connectionId],
      );
      return rows.map((r) => fromRow(r) as CheckoutRecord);
    },
    /** Checkouts whose confirm handed them to the store at or before `before`, oldest first. */
    async listConfirming(route: string, before: string, limit: number): Promise<CheckoutRecord[]> {
      const rows = await db.all<Row>(
        "SELECT * FROM checkouts WHERE status = 'confirming' AND route = ? AND confirmed_at <= ? ORDER BY confirmed_at LIMIT ?",
        [route, before, limit],
      );
      return rows.map((r) => fromRow(r) as CheckoutRecord);
    },
    /** Totals of checkouts already handed to the store but not yet turned into orders. */
    /** `ucp` checkouts waiting on the buyer at the store (a hand-off), least recently looked at first. */
    async listWaitingAtStore(limit: number): Promise<CheckoutRecord[]> {
      const rows = await db.all<Row>(
        "SELECT * FROM checkouts WHERE route = 'ucp' AND status = 'requires_user_action' AND store_session IS NOT NULL ORDER BY updated_at LIMIT ?",
        [limit],
      );
      return rows.map((r) => fromRow(r) as CheckoutRecord);
    },
    async sumConfirmingSince(userId: string, since: string, currency: string): Promise<number> {
      const rows = await db.all<{ totals: string }>(
        "SELECT totals FROM checkouts WHERE user_id = ? AND status = 'confirming' AND confirmed_at > ?",
        [userId, since],
      );
      return rows
        .map((r) => fromJson<Totals>(r.totals).total)
        .filter((t) => t.currency === currency)
        .reduce((sum, t) => sum + t.amount, 0);
    },
  };
}
