import { orderingColumnSql } from '../../../platform/db/ordering-column.js';
import type { Migration } from '../../../platform/db/sql.js';

/**
 * The latest digest of a brand and the latest fire of an automation break ties within one
 * millisecond by insertion order; that was `rowid`, which PostgreSQL lacks. `seq` takes its place
 * (see platform/db/ordering-column.ts).
 */
const sql = orderingColumnSql(['digests', 'automation_fires']);

export const orderingColumnsMigration: Migration = {
  id: 10,
  name: 'ordering columns instead of rowid',
  up: sql.sqlite,
  postgres: sql.postgres,
};
