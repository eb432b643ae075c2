import type { Migration } from '../../../platform/db/sql.js';

/**
 * A brand's time zone (an IANA name): the app shows and picks every time of the brand in it. The
 * API still speaks ISO instants everywhere; the zone is only how people read them. Brands made
 * before it existed get `UTC`, the zone that changes no instant's wall-clock reading on a server
 * run in UTC and that every engine knows.
 */
export const brandTimeZoneMigration: Migration = {
  id: 13,
  name: 'brand time zone',
  up: `ALTER TABLE brands ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';`,
  postgres: `ALTER TABLE brands ADD COLUMN time_zone TEXT COLLATE "C" NOT NULL DEFAULT 'UTC';`,
};
