import type Database from 'better-sqlite3';
import type { Migration } from '../../../platform/db/sql.js';

const HOUR = 3_600_000;
const hourOf = (iso: string) => new Date(Math.floor(Date.parse(iso) / HOUR) * HOUR).toISOString();

/**
 * The schema backs what the services used to check on their own, so a second request (or a
 * second instance) cannot slip between a check and the write it guards:
 *
 * - One post per channel per hour. `posts.slot_hour` is the hour a post holds (its
 *   `scheduled_for` rounded down); a post published "now" or put back in the queue by a person
 *   holds none. A unique partial index covers the posts that still hold their hour: `scheduled`
 *   and `publishing` (a post going back to `scheduled` for a retry keeps the hour it held).
 * - One pending approval per draft.
 * (One draft per idea and platform has been a unique index since migration 2.)
 *
 * Existing databases may already hold duplicates, written by the races this closes. Nothing is
 * deleted: of the posts sharing a channel and hour the one publishing (else the oldest) keeps the
 * hour and the others keep their time without holding it, with a `notice` saying so; of the
 * pending approvals of one draft the oldest stays pending and the others are rejected with a
 * `decision_reason` naming it. Each change is logged.
 */
export const invariantsMigration: Migration = {
  id: 7,
  name: 'invariants in the schema',
  up: (db, log) => {
    db.exec('ALTER TABLE posts ADD COLUMN slot_hour TEXT');
    settlePosts(db, log);
    db.exec(`CREATE UNIQUE INDEX posts_one_per_slot ON posts (channel_id, slot_hour)
               WHERE slot_hour IS NOT NULL AND status IN ('scheduled', 'publishing')`);
    settleApprovals(db, log);
    db.exec(`CREATE UNIQUE INDEX approvals_one_pending_per_draft ON approvals (draft_id)
               WHERE status = 'pending'`);
  },
  // Only the DDL: no PostgreSQL deployment predates this migration, so there are no duplicates
  // to settle (a SQLite deployment moved by `svc-server migrate-to-postgres` is settled already,
  // on SQLite, before its rows are copied).
  postgres: `
    ALTER TABLE posts ADD COLUMN slot_hour TEXT COLLATE "C";
    CREATE UNIQUE INDEX posts_one_per_slot ON posts (channel_id, slot_hour)
      WHERE slot_hour IS NOT NULL AND status IN ('scheduled', 'publishing');
    CREATE UNIQUE INDEX approvals_one_pending_per_draft ON approvals (draft_id)
      WHERE status = 'pending';
  `,
};

function settlePosts(db: Database.Database, log: (message: string) => void) {
  const rows = db
    .prepare(
      `SELECT id, channel_id, status, scheduled_for FROM posts
        WHERE status IN ('scheduled', 'publishing') AND scheduled_for IS NOT NULL
        ORDER BY CASE status WHEN 'publishing' THEN 0 ELSE 1 END, created_at, id`,
    )
    .all() as { id: string; channel_id: string; status: string; scheduled_for: string }[];
  const holder = new Map<string, string>();
  const take = db.prepare('UPDATE posts SET slot_hour = ? WHERE id = ?');
  const share = db.prepare('UPDATE posts SET notice = ? WHERE id = ?');
  for (const r of rows) {
    const hour = hourOf(r.scheduled_for);
    const key = `${r.channel_id} ${hour}`;
    const first = holder.get(key);
    if (!first) {
      holder.set(key, r.id);
      take.run(hour, r.id);
      continue;
    }
    share.run(
      `This post shares the hour of ${hour} on its channel with post ${first}: both were scheduled before svc held one post per channel per hour. It still goes out at ${r.scheduled_for}; move it with PATCH /v1/posts/${r.id} to give it an hour of its own.`,
      r.id,
    );
    log(
      `post ${r.id} shares the hour of ${hour} on channel ${r.channel_id} with post ${first}; ${first} holds the hour, ${r.id} keeps its time without holding it.`,
    );
  }
}

function settleApprovals(db: Database.Database, log: (message: string) => void) {
  const rows = db
    .prepare("SELECT id, draft_id FROM approvals WHERE status = 'pending' ORDER BY created_at, id")
    .all() as { id: string; draft_id: string }[];
  const kept = new Map<string, string>();
  const now = new Date().toISOString();
  const reject = db.prepare(
    `UPDATE approvals SET status = 'rejected', pending_rank = 0, decided_at = ?, decided_by = 'system',
            decision_reason = ?, updated_at = ? WHERE id = ?`,
  );
  for (const r of rows) {
    const first = kept.get(r.draft_id);
    if (!first) {
      kept.set(r.draft_id, r.id);
      continue;
    }
    reject.run(
      now,
      `Closed on upgrade: draft ${r.draft_id} already had pending approval ${first}, and a draft has one pending approval at a time.`,
      now,
      r.id,
    );
    log(
      `approval ${r.id} was a second pending approval of draft ${r.draft_id}; rejected, ${first} stays pending.`,
    );
  }
}
