import type { SqlExecutor } from '../../src/platform/db/sql.js';

/**
 * Makes the named lease run out now, as its length passing on the database's clock would (leases
 * are judged by that clock, platform/db/lease-clock.ts, so moving a test's clock no longer does):
 * the empty text sorts before every lease time on both engines. The holder stays named.
 */
export async function runOutLease(db: SqlExecutor, name: string): Promise<void> {
  const r = await db.run("UPDATE leases SET until = '' WHERE name = ?", [name]);
  if (r.changes !== 1) throw new Error(`runOutLease: no lease named ${name}`);
}
