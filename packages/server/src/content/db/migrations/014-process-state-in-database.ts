import type { Migration } from '../../../platform/db/sql.js';

/**
 * What one process used to hold for itself, moved where every instance sees it:
 *
 * - `publish_attempts.owner/lease_until`: the instance calling the platform, and until when it
 *   vouches for the call (it renews while the call runs). Start-up recovery on another instance
 *   leaves a live owner's attempt alone and makes `unconfirmed` only attempts whose owner is gone
 *   (lease run out, or a dead process on the same machine). Attempts from before this migration
 *   have no owner: they were interrupted, as before.
 * - `automation_run_counts`: the runs of each day counted toward the caps, per automation and for
 *   the workspace (`scope` '*'), taken with one conditional upsert each, so two instances firing
 *   at once cannot both take the last run. Filled from the fires already recorded.
 */
const COUNT_RUNS = `
    INSERT INTO automation_run_counts (scope, day, runs)
      SELECT automation_id, day, COUNT(*) FROM automation_fires
       WHERE outcome IN ('succeeded', 'failed') GROUP BY automation_id, day;
    INSERT INTO automation_run_counts (scope, day, runs)
      SELECT '*', day, COUNT(*) FROM automation_fires
       WHERE outcome IN ('succeeded', 'failed') GROUP BY day;
`;

export const processStateMigration: Migration = {
  id: 14,
  name: 'publish attempt owners and automation run counts',
  up: `
    ALTER TABLE publish_attempts ADD COLUMN owner TEXT;
    ALTER TABLE publish_attempts ADD COLUMN lease_until TEXT;
    CREATE TABLE automation_run_counts (
      scope TEXT NOT NULL,
      day TEXT NOT NULL,
      runs INTEGER NOT NULL CHECK (runs >= 0),
      PRIMARY KEY (scope, day)
    );
    ${COUNT_RUNS}
  `,
  postgres: `
    ALTER TABLE publish_attempts ADD COLUMN owner TEXT COLLATE "C";
    ALTER TABLE publish_attempts ADD COLUMN lease_until TEXT COLLATE "C";
    CREATE TABLE automation_run_counts (
      scope TEXT COLLATE "C" NOT NULL,
      day TEXT COLLATE "C" NOT NULL,
      runs BIGINT NOT NULL CHECK (runs >= 0),
      PRIMARY KEY (scope, day)
    );
    ${COUNT_RUNS}
  `,
};
