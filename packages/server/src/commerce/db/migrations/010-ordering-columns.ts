import { orderingColumnSql } from '../../../platform/db/ordering-column.js';
import type { Migration } from '../../../platform/db/sql.js';

/**
 * Connections, orders, webhook endpoints and deliveries list (and deliveries are claimed) in
 * insertion order within one millisecond; that was `rowid`, which PostgreSQL lacks. `seq` takes
 * its place (see platform/db/ordering-column.ts).
 */
const sql = orderingColumnSql(['connections', 'orders', 'webhook_endpoints', 'deliveries', 'events']);

export const orderingColumns: Migration = {
  id: 10,
  name: 'ordering columns instead of rowid',
  up: sql.sqlite,
  postgres: sql.postgres,
};
