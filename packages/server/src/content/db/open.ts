import type { Config } from '../../config.js';
import { openConfiguredDatabase } from '../../platform/db/open.js';
import type { SqlDatabase } from '../../platform/db/sql.js';
import { contentMigrations } from './migrations/index.js';

/**
 * The content database on the configured engine (SQLite in `dataDir`, or schema `content` at
 * SERVICE_DATABASE_URL), migrated. `log` hears what a migration changed in existing data (see
 * migration notes); stderr without one; `migrationsSent`: see OpenServiceDatabase. A module of
 * its own, apart from the service's code, so the CLI can start opening it before loading the
 * rest (see cli.ts, `start`).
 */
export const openContentDatabase = (
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'databasePoolSize' | 'databasePrepare'>,
  log?: (message: string) => void,
  migrationsSent?: () => void,
): Promise<SqlDatabase> => openConfiguredDatabase('content', contentMigrations, config, log, migrationsSent);
