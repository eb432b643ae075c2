import { isGoneHere } from '../instance.js';
import { LONGEST_LEASE_MS, leaseClock } from './lease-clock.js';
import type { Dialect, SqlExecutor } from './sql.js';

/**
 * Named leases, one row each: work that must run on one instance at a time (the content
 * background pass, a channel's token refresh, a checkout's placement) takes its name here first.
 * A lease is held until `until`; an instance that dies holding one never releases it, and the
 * lease simply runs out, so its work comes back to whichever instance asks next (at once, when the
 * holder was a process on the same machine, in the same pid namespace, that no longer exists).
 *
 * `until` is written and judged on one clock for every instance (lease-clock.ts): PostgreSQL's,
 * inside the statement, or on SQLite the machine's monotonic clock. No process's wall clock takes
 * part, so a host whose clock is minutes off neither keeps a lease past its end nor takes a live
 * one. Callers give a length, never a time.
 */
export type LeasesStore = ReturnType<typeof leasesStore>;

export function leasesStore(db: SqlExecutor) {
  return {
    /**
     * Takes the lease for `ttlMs` in one statement: true when `owner` now holds it; false while
     * a lease on that name (anyone's, this owner's too: two jobs in one process exclude each
     * other as well) has not run out.
     */
    async take(name: string, owner: string, ttlMs: number, dialect: Dialect): Promise<boolean> {
      longestLease(ttlMs);
      const clock = leaseClock(dialect);
      const until = clock.until(ttlMs);
      const over = clock.over('leases.until');
      const r = await db.run(
        `INSERT INTO leases (name, owner, until) VALUES (?, ?, ${until.sql})
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
          WHERE ${over.sql}`,
        [name, owner, ...until.params, ...over.params],
      );
      if (r.changes > 0) return true;
      // Held by a process in this pid namespace on this machine that is gone (a restart after a
      // crash): take it over now rather than after it runs out; only from that holder, so two
      // takers cannot both win.
      const held = await db.get<{ owner: string }>('SELECT owner FROM leases WHERE name = ?', [name]);
      if (!held || !isGoneHere(held.owner)) return false;
      const again = clock.until(ttlMs);
      const took = await db.run(
        `UPDATE leases SET owner = ?, until = ${again.sql} WHERE name = ? AND owner = ?`,
        [owner, ...again.params, name, held.owner],
      );
      return took.changes > 0;
    },
    /**
     * Extends a lease its holder still holds to `ttlMs` from now (a heartbeat for long work, or a
     * holder's check, inside the transaction that writes its result, that it still owns the work):
     * false when `owner` no longer holds it, or when its lease has run out, even if nobody has
     * taken it yet (the holder was paused past its end: whoever looked meanwhile may have begun).
     */
    async renew(name: string, owner: string, ttlMs: number, dialect: Dialect): Promise<boolean> {
      longestLease(ttlMs);
      const clock = leaseClock(dialect);
      const until = clock.until(ttlMs);
      const over = clock.over('until');
      const r = await db.run(
        `UPDATE leases SET until = ${until.sql} WHERE name = ? AND owner = ? AND NOT (${over.sql})`,
        [...until.params, name, owner, ...over.params],
      );
      return r.changes > 0;
    },
    /**
     * Extends the lease to `ttlMs` from now while `owner` still holds it, even past its end when
     * nobody has taken it since: then no one else has begun, so the work is still this owner's
     * alone. False once another owner took it (or it was released). A take and this are each one
     * statement on the one row, so they cannot both win: inside a transaction this is the fence a
     * lease-guarded result is written behind (lease-lock.ts; on PostgreSQL the row stays locked,
     * so no take can slip in before the commit).
     */
    async keep(name: string, owner: string, ttlMs: number, dialect: Dialect): Promise<boolean> {
      longestLease(ttlMs);
      const until = leaseClock(dialect).until(ttlMs);
      const r = await db.run(`UPDATE leases SET until = ${until.sql} WHERE name = ? AND owner = ?`, [
        ...until.params,
        name,
        owner,
      ]);
      return r.changes > 0;
    },
    /** Gives the lease back early; only its holder can. */
    async release(name: string, owner: string): Promise<void> {
      await db.run('DELETE FROM leases WHERE name = ? AND owner = ?', [name, owner]);
    },
  };
}

/** A programming error, not input: a longer lease would count as over on SQLite (lease-clock.ts). */
function longestLease(ttlMs: number): void {
  if (!(ttlMs >= 0 && ttlMs <= LONGEST_LEASE_MS))
    throw new Error(
      `a lease lasts 0 to ${LONGEST_LEASE_MS} ms, not ${ttlMs}: raise LONGEST_LEASE_MS with care`,
    );
}

/** The table behind leasesStore; both services create it in their own migration. */
export const LEASES_TABLE_SQLITE = `
  CREATE TABLE leases (
    name TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    until TEXT NOT NULL
  );`;

export const LEASES_TABLE_POSTGRES = `
  CREATE TABLE leases (
    name TEXT COLLATE "C" PRIMARY KEY,
    owner TEXT COLLATE "C" NOT NULL,
    until TEXT COLLATE "C" NOT NULL
  );`;
