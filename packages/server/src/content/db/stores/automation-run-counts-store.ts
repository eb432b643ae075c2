import type { SqlDatabase, SqlExecutor } from '../../../platform/db/sql.js';

/** The scope that counts every automation's runs: the workspace's cap. */
export const WORKSPACE_SCOPE = '*';

/** Which cap refused a run; null when the run was counted. */
export type CapReached = 'automation' | 'workspace' | null;

/**
 * Bumps `scope`'s count for `day` unless it has reached `cap`, in one statement: true when
 * counted. On PostgreSQL a concurrent bump of the same row waits for this one to commit, then
 * re-checks `runs < cap` against the count it wrote, so two instances cannot both take the last run.
 */
async function bump(db: SqlExecutor, scope: string, day: string, cap: number): Promise<boolean> {
  if (cap <= 0) return false;
  const row = await db.get<{ runs: number }>(
    `INSERT INTO automation_run_counts (scope, day, runs) VALUES (?, ?, 1)
     ON CONFLICT (scope, day) DO UPDATE SET runs = automation_run_counts.runs + 1
      WHERE automation_run_counts.runs < ?
     RETURNING runs`,
    [scope, day, cap],
  );
  return row !== undefined;
}

/**
 * The caps' counters (see migration 014), shared by every instance. A run is counted before it
 * starts, against both caps at once: either both counts go up, or neither does.
 */
export function automationRunCountsStore(db: SqlDatabase) {
  return {
    async take(day: string, automationId: string, caps: { automation: number; workspace: number }) {
      return db.transaction(async (tx): Promise<CapReached> => {
        if (!(await bump(tx, automationId, day, caps.automation))) return 'automation';
        if (await bump(tx, WORKSPACE_SCOPE, day, caps.workspace)) return null;
        // The workspace is full: give the automation's run back, in the same transaction.
        await tx.run('UPDATE automation_run_counts SET runs = runs - 1 WHERE scope = ? AND day = ?', [
          automationId,
          day,
        ]);
        return 'workspace';
      });
    },
    /** Drops the counts of days before `day` (text order is date order): caps look at today only. */
    async purgeBefore(day: string) {
      await db.run('DELETE FROM automation_run_counts WHERE day < ?', [day]);
    },
  };
}
