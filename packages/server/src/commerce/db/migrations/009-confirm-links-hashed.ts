import type { Migration } from '../../../platform/db/sql.js';

export const confirmLinksHashed: Migration = {
  id: 9,
  name: 'hosted confirm links: keep only the hash of their token, never the link',
  up: `
    -- A checkout waiting for the user's confirmation kept the hosted page's link, token and all,
    -- in next_action.url. Drop the link; confirm_token_hash stays, so a link already handed to
    -- the app (and by it to the user) still opens its page.
    UPDATE checkouts SET next_action = json_remove(next_action, '$.url')
      WHERE next_action IS NOT NULL
        AND json_extract(next_action, '$.type') = 'user_confirmation'
        AND json_extract(next_action, '$.url') IS NOT NULL;
  `,
  // A data fix only: no PostgreSQL deployment predates it (a SQLite deployment moved by
  // `svc-server migrate-to-postgres` is fixed on SQLite before its rows are copied).
  postgres: '-- nothing to change: no PostgreSQL checkout ever kept the link',
};
