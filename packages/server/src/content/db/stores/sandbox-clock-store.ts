import type { SqlDatabase } from '../../../platform/db/sqlite.js';

/** Read once at start-up, while the app is built. */
export async function readSandboxOffset(db: SqlDatabase): Promise<number> {
  const row = await db.get<{ offset_ms: number }>('SELECT offset_ms FROM sandbox_clock WHERE id = 1');
  return row?.offset_ms ?? 0;
}

export async function writeSandboxOffset(db: SqlDatabase, offsetMs: number): Promise<void> {
  await db.run(
    'INSERT INTO sandbox_clock (id, offset_ms) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET offset_ms = excluded.offset_ms',
    [offsetMs],
  );
}
