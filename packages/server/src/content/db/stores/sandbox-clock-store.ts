import type { SqlDatabase } from '../../../platform/db/sqlite.js';

/**
 * Read once at start-up, synchronously, because the app is built synchronously; every later
 * access goes through the async executor like any other store.
 */
export function readSandboxOffset(db: SqlDatabase): number {
  const row = db.raw.prepare('SELECT offset_ms FROM sandbox_clock WHERE id = 1').get() as
    | { offset_ms: number }
    | undefined;
  return row?.offset_ms ?? 0;
}

export async function writeSandboxOffset(db: SqlDatabase, offsetMs: number): Promise<void> {
  await db.run(
    'INSERT INTO sandbox_clock (id, offset_ms) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET offset_ms = excluded.offset_ms',
    [offsetMs],
  );
}
