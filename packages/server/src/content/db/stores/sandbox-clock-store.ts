import type { SqlDatabase, SqlExecutor } from '../../../platform/db/sql.js';

/** Read once at start-up, while the app is built. */
export async function readSandboxOffset(db: SqlDatabase): Promise<number> {
  const row = await db.get<{ offset_ms: number }>('SELECT offset_ms FROM sandbox_clock WHERE id = 1');
  return row?.offset_ms ?? 0;
}

/** The offset as the database has it now: another instance may have moved it. */
export async function currentSandboxOffset(db: SqlExecutor): Promise<number> {
  const row = await db.get<{ offset_ms: number }>('SELECT offset_ms FROM sandbox_clock WHERE id = 1');
  return Number(row?.offset_ms ?? 0);
}

/**
 * Moves the offset forward by `ms` in one statement and returns the new offset, so two
 * instances advancing at once both count (neither writes back a value it read earlier).
 */
export async function addSandboxOffset(db: SqlExecutor, ms: number): Promise<number> {
  const row = await db.get<{ offset_ms: number }>(
    `INSERT INTO sandbox_clock (id, offset_ms) VALUES (1, ?)
     ON CONFLICT (id) DO UPDATE SET offset_ms = sandbox_clock.offset_ms + excluded.offset_ms
     RETURNING offset_ms`,
    [ms],
  );
  return Number(row?.offset_ms ?? ms);
}
