import type { Migration } from '../../../platform/db/sql.js';

/**
 * Events name the checkout and order they are about in columns of their own, so the dashboard's
 * trail of a checkout or an order reads a few rows through an index instead of matching
 * `data LIKE '%…%'` against every event of the environment (a scan that grew with the table).
 * New events get them when they are written (webhooks-store.ts `insertEvent`, the same rule as
 * below); existing ones are filled here from their payload:
 * - `checkout.*`: the payload is the checkout: `id`, and `order_id` once an order exists;
 * - `order.*`: the payload is the order: `id`, and its `checkout_id`.
 * Other events (connections, webhook tests) name neither. The indexes are partial: most rows of
 * a busy table do name a checkout, but the ones that do not stay out of them.
 */
const checkoutType = "type LIKE 'checkout.%'";
const orderType = "type LIKE 'order.%'";
const backfill = (field: (name: string) => string) => `
  UPDATE events SET
    checkout_id = CASE WHEN ${checkoutType} THEN ${field('id')} ELSE ${field('checkout_id')} END,
    order_id = CASE WHEN ${checkoutType} THEN ${field('order_id')} ELSE ${field('id')} END
   WHERE (${checkoutType} OR ${orderType}) AND checkout_id IS NULL AND order_id IS NULL`;

/** Fills the columns of events written before them; exported for the test that rewinds to it. */
export const EVENT_SUBJECTS_BACKFILL = {
  sqlite: backfill((name) => `json_extract(data, '$.${name}')`),
  postgres: backfill((name) => `(data::jsonb ->> '${name}')`),
};

const indexes = `
  CREATE INDEX events_checkout ON events (checkout_id, created_at, seq) WHERE checkout_id IS NOT NULL;
  CREATE INDEX events_order ON events (order_id, created_at, seq) WHERE order_id IS NOT NULL;`;

export const eventSubjects: Migration = {
  id: 14,
  name: 'events name their checkout and order in columns',
  up: `
    ALTER TABLE events ADD COLUMN checkout_id TEXT;
    ALTER TABLE events ADD COLUMN order_id TEXT;
    ${EVENT_SUBJECTS_BACKFILL.sqlite};
    ${indexes}`,
  postgres: `
    ALTER TABLE events ADD COLUMN checkout_id TEXT COLLATE "C";
    ALTER TABLE events ADD COLUMN order_id TEXT COLLATE "C";
    ${EVENT_SUBJECTS_BACKFILL.postgres};
    ${indexes}`,
};
