import type { SqlExecutor } from '../../platform/db/sql.js';

/** The sandbox stores' own ledger: what they placed, keyed by our checkout id. */
export function sandboxOrdersStore(db: SqlExecutor) {
  return {
    async find(checkoutId: string): Promise<{ merchant_order_ref: string } | undefined> {
      return db.get<{ merchant_order_ref: string }>(
        'SELECT merchant_order_ref FROM sandbox_store_orders WHERE checkout_id = ?',
        [checkoutId],
      );
    },
    /** Records a placement once; a repeat keeps the first and returns its reference. */
    async place(checkoutId: string, ref: string, at: string): Promise<string> {
      await db.run(
        'INSERT INTO sandbox_store_orders (checkout_id, merchant_order_ref, placed_at) VALUES (?, ?, ?) ON CONFLICT (checkout_id) DO NOTHING',
        [checkoutId, ref, at],
      );
      return (await this.find(checkoutId))?.merchant_order_ref ?? ref;
    },
  };
}
