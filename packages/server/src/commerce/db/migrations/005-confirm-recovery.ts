import type { Migration } from '../../../platform/db/sql.js';

export const confirmRecovery: Migration = {
  id: 5,
  name: 'confirm recovery: the key a confirm ran under, and the sandbox store ledger',
  up: `
    -- The Idempotency-Key (scope and key, as JSON) of the confirm that moved the checkout to
    -- confirming, so whoever finishes the placement (the request, a retry, crash recovery)
    -- answers that key in the same transaction.
    ALTER TABLE checkouts ADD COLUMN confirm_key TEXT;
    CREATE INDEX checkouts_confirming ON checkouts (confirmed_at) WHERE status = 'confirming';

    -- What the sandbox stores placed, keyed by our checkout id: a placement is idempotent at
    -- the store, and the store can say after a crash whether it placed an order.
    CREATE TABLE sandbox_store_orders (
      checkout_id TEXT PRIMARY KEY,
      merchant_order_ref TEXT NOT NULL,
      placed_at TEXT NOT NULL
    );
  `,
  postgres: `
    ALTER TABLE checkouts ADD COLUMN confirm_key TEXT COLLATE "C";
    CREATE INDEX checkouts_confirming ON checkouts (confirmed_at) WHERE status = 'confirming';

    CREATE TABLE sandbox_store_orders (
      checkout_id TEXT COLLATE "C" PRIMARY KEY,
      merchant_order_ref TEXT COLLATE "C" NOT NULL,
      placed_at TEXT COLLATE "C" NOT NULL
    );
  `,
};
