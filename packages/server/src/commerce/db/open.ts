import type { Config } from '../../config.js';
import { openConfiguredDatabase } from '../../platform/db/open.js';
import type { SqlDatabase } from '../../platform/db/sql.js';
import { commerceMigrations } from './migrations.js';

/**
 * The commerce database on the configured engine (SQLite in `dataDir`, or schema `commerce` at
 * SERVICE_DATABASE_URL), migrated. `log` hears what a migration changed in existing data (see
 * migration notes); stderr without one; `migrationsSent`: see OpenServiceDatabase. A module of
 * its own, apart from the service's code, so the CLI can start opening it before loading the
 * rest (see cli.ts, `start`).
 */
export const openCommerceDatabase = (
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'databasePoolSize' | 'databasePrepare'>,
  log?: (message: string) => void,
  migrationsSent?: () => void,
): Promise<SqlDatabase> =>
  openConfiguredDatabase('commerce', commerceMigrations, config, log, migrationsSent);
