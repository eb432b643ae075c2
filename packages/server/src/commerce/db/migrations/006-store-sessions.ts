import type { Migration } from '../../../platform/db/sql.js';

export const storeSessions: Migration = {
  id: 6,
  name: 'store sessions: the checkout session a protocol store keeps for one of our checkouts',
  up: `
    -- JSON: the store's checkout-session id, where it stands there (mapped), its continue_url,
    -- the payment instrument it offered and the order it reported. Null for sandbox checkouts.
    ALTER TABLE checkouts ADD COLUMN store_session TEXT;
    CREATE INDEX checkouts_store_waiting ON checkouts (updated_at)
      WHERE route = 'ucp' AND status = 'requires_user_action';
  `,
  postgres: `
    ALTER TABLE checkouts ADD COLUMN store_session TEXT COLLATE "C";
    CREATE INDEX checkouts_store_waiting ON checkouts (updated_at)
      WHERE route = 'ucp' AND status = 'requires_user_action';
  `,
};
