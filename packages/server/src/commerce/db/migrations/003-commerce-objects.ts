import type { Migration } from '../../../platform/db/sql.js';

export const commerceObjects: Migration = {
  id: 3,
  name: 'catalog, offers, connections, checkouts and orders',
  up: `
    CREATE TABLE catalog_merchants (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      name_key TEXT NOT NULL,
      domain TEXT NOT NULL UNIQUE,
      tier TEXT NOT NULL,
      route TEXT NOT NULL,
      category TEXT,
      requires_connection INTEGER NOT NULL,
      capabilities TEXT NOT NULL,
      status TEXT NOT NULL,
      sandbox INTEGER NOT NULL,
      created_at TEXT NOT NULL
    );
    CREATE INDEX catalog_merchants_page ON catalog_merchants (sandbox, name_key, id);

    CREATE TABLE offers (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      env TEXT NOT NULL,
      merchant_id TEXT NOT NULL,
      data TEXT NOT NULL,
      fetched_at TEXT NOT NULL,
      expires_at TEXT NOT NULL
    );

    CREATE TABLE connections (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      env TEXT NOT NULL,
      user_id TEXT NOT NULL REFERENCES users(id),
      merchant_id TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('active', 'needs_user', 'revoked')),
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL,
      UNIQUE (user_id, merchant_id)
    );

    CREATE TABLE checkouts (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      env TEXT NOT NULL,
      user_id TEXT NOT NULL REFERENCES users(id),
      merchant_id TEXT NOT NULL,
      offer_id TEXT,
      product_url TEXT NOT NULL,
      route TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('building', 'requires_user_action', 'ready_to_confirm',
        'confirming', 'completed', 'failed', 'canceled')),
      item_ref TEXT NOT NULL,
      quantity INTEGER NOT NULL,
      line_items TEXT NOT NULL,
      totals TEXT NOT NULL,
      buyer TEXT,
      shipping_address TEXT,
      next_action TEXT,
      rules TEXT NOT NULL,
      requires_user_confirmation INTEGER NOT NULL DEFAULT 0,
      user_confirmed_at TEXT,
      confirm_token_hash TEXT,
      form_token_hash TEXT,
      task_done_at TEXT,
      code_done_at TEXT,
      connection_id TEXT,
      reprice_count INTEGER NOT NULL DEFAULT 0,
      confirmed_at TEXT,
      order_id TEXT,
      error TEXT,
      merchant_messages TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX checkouts_user_confirming ON checkouts (user_id, status, confirmed_at);
    CREATE INDEX checkouts_waiting_connection ON checkouts (connection_id) WHERE connection_id IS NOT NULL;
    CREATE UNIQUE INDEX checkouts_confirm_token ON checkouts (confirm_token_hash)
      WHERE confirm_token_hash IS NOT NULL;

    CREATE TABLE orders (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL,
      env TEXT NOT NULL,
      user_id TEXT NOT NULL REFERENCES users(id),
      checkout_id TEXT NOT NULL UNIQUE REFERENCES checkouts(id),
      merchant_id TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('placed', 'shipped', 'delivered', 'canceled', 'returned')),
      line_items TEXT NOT NULL,
      totals TEXT NOT NULL,
      total_amount INTEGER NOT NULL,
      currency TEXT NOT NULL,
      shipping_address TEXT NOT NULL,
      merchant_order_ref TEXT NOT NULL,
      created_at TEXT NOT NULL,
      updated_at TEXT NOT NULL
    );
    CREATE INDEX orders_user_newest ON orders (user_id, created_at);
  `,
  postgres: `
    CREATE TABLE catalog_merchants (
      id TEXT COLLATE "C" PRIMARY KEY,
      name TEXT COLLATE "C" NOT NULL,
      name_key TEXT COLLATE "C" NOT NULL,
      domain TEXT COLLATE "C" NOT NULL UNIQUE,
      tier TEXT COLLATE "C" NOT NULL,
      route TEXT COLLATE "C" NOT NULL,
      category TEXT COLLATE "C",
      requires_connection BOOLEAN NOT NULL,
      capabilities TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL,
      sandbox BOOLEAN NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX catalog_merchants_page ON catalog_merchants (sandbox, name_key, id);

    CREATE TABLE offers (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      env TEXT COLLATE "C" NOT NULL,
      merchant_id TEXT COLLATE "C" NOT NULL,
      data TEXT COLLATE "C" NOT NULL,
      fetched_at TEXT COLLATE "C" NOT NULL,
      expires_at TEXT COLLATE "C" NOT NULL
    );

    CREATE TABLE connections (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      env TEXT COLLATE "C" NOT NULL,
      user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id),
      merchant_id TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL CHECK (status IN ('active', 'needs_user', 'revoked')),
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL,
      UNIQUE (user_id, merchant_id)
    );

    CREATE TABLE checkouts (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      env TEXT COLLATE "C" NOT NULL,
      user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id),
      merchant_id TEXT COLLATE "C" NOT NULL,
      offer_id TEXT COLLATE "C",
      product_url TEXT COLLATE "C" NOT NULL,
      route TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL CHECK (status IN ('building', 'requires_user_action', 'ready_to_confirm',
        'confirming', 'completed', 'failed', 'canceled')),
      item_ref TEXT COLLATE "C" NOT NULL,
      quantity BIGINT NOT NULL,
      line_items TEXT COLLATE "C" NOT NULL,
      totals TEXT COLLATE "C" NOT NULL,
      buyer TEXT COLLATE "C",
      shipping_address TEXT COLLATE "C",
      next_action TEXT COLLATE "C",
      rules TEXT COLLATE "C" NOT NULL,
      requires_user_confirmation BOOLEAN NOT NULL DEFAULT FALSE,
      user_confirmed_at TEXT COLLATE "C",
      confirm_token_hash TEXT COLLATE "C",
      form_token_hash TEXT COLLATE "C",
      task_done_at TEXT COLLATE "C",
      code_done_at TEXT COLLATE "C",
      connection_id TEXT COLLATE "C",
      reprice_count BIGINT NOT NULL DEFAULT 0,
      confirmed_at TEXT COLLATE "C",
      order_id TEXT COLLATE "C",
      error TEXT COLLATE "C",
      merchant_messages TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX checkouts_user_confirming ON checkouts (user_id, status, confirmed_at);
    CREATE INDEX checkouts_waiting_connection ON checkouts (connection_id) WHERE connection_id IS NOT NULL;
    CREATE UNIQUE INDEX checkouts_confirm_token ON checkouts (confirm_token_hash)
      WHERE confirm_token_hash IS NOT NULL;

    CREATE TABLE orders (
      id TEXT COLLATE "C" PRIMARY KEY,
      account_id TEXT COLLATE "C" NOT NULL,
      env TEXT COLLATE "C" NOT NULL,
      user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id),
      checkout_id TEXT COLLATE "C" NOT NULL UNIQUE REFERENCES checkouts(id),
      merchant_id TEXT COLLATE "C" NOT NULL,
      status TEXT COLLATE "C" NOT NULL CHECK (status IN ('placed', 'shipped', 'delivered', 'canceled', 'returned')),
      line_items TEXT COLLATE "C" NOT NULL,
      totals TEXT COLLATE "C" NOT NULL,
      total_amount BIGINT NOT NULL,
      currency TEXT COLLATE "C" NOT NULL,
      shipping_address TEXT COLLATE "C" NOT NULL,
      merchant_order_ref TEXT COLLATE "C" NOT NULL,
      created_at TEXT COLLATE "C" NOT NULL,
      updated_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX orders_user_newest ON orders (user_id, created_at);
  `,
};
