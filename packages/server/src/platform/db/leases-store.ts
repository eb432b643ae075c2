import { isGoneHere } from '../instance.js';
import type { SqlExecutor } from './sql.js';

/**
 * Named leases, one row each: work that must run on one instance at a time (the content
 * background pass, a channel's token refresh, a checkout's placement) takes its name here first.
 * A lease is held until `until`; an instance that dies holding one never releases it, and the
 * lease simply runs out, so its work comes back to whichever instance asks next (at once, when the
 * holder was a process on the same machine, in the same pid namespace, that no longer exists).
 * Times are ISO
 * strings from the injected clock, compared as text (they all have the same shape).
 */
export function leasesStore(db: SqlExecutor) {
  return {
    /**
     * Takes the lease in one statement: true when `owner` now holds it until `until`; false while
     * a lease on that name (anyone's, this owner's too: two jobs in one process exclude each
     * other as well) has not run out.
     */
    async take(name: string, owner: string, now: string, until: string): Promise<boolean> {
      const r = await db.run(
        `INSERT INTO leases (name, owner, until) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until
          WHERE leases.until <= ?`,
        [name, owner, until, now],
      );
      if (r.changes > 0) return true;
      // Held by a process in this pid namespace on this machine that is gone (a restart after a
      // crash): take it over now rather than after it runs out; only from that holder, so two
      // takers cannot both win.
      const held = await db.get<{ owner: string }>('SELECT owner FROM leases WHERE name = ?', [name]);
      if (!held || !isGoneHere(held.owner)) return false;
      const took = await db.run('UPDATE leases SET owner = ?, until = ? WHERE name = ? AND owner = ?', [
        owner,
        until,
        name,
        held.owner,
      ]);
      return took.changes > 0;
    },
    /**
     * Extends a lease its holder still holds (a heartbeat for work longer than a fixed lease):
     * false when `owner` no longer holds it (it ran out and someone took it over).
     */
    async renew(name: string, owner: string, until: string): Promise<boolean> {
      const r = await db.run('UPDATE leases SET until = ? WHERE name = ? AND owner = ?', [
        until,
        name,
        owner,
      ]);
      return r.changes > 0;
    },
    /** Gives the lease back early; only its holder can. */
    async release(name: string, owner: string): Promise<void> {
      await db.run('DELETE FROM leases WHERE name = ? AND owner = ?', [name, owner]);
    },
    /** The owner of a lease that has not run out at `now`, else null. */
    async holder(name: string, now: string): Promise<string | null> {
      const row = await db.get<{ owner: string }>('SELECT owner FROM leases WHERE name = ? AND until > ?', [
        name,
        now,
      ]);
      return row?.owner ?? null;
    },
  };
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
