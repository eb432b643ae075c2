import type { SqlDatabase } from '../../src/platform/db/sql.js';

/**
 * For a test that holds a background pass at an outside party while the service stops:
 * `reached()` resolves once close() has gone as far as it goes without that pass, saying how:
 * `waiting` for it (close() logs `waiting for the … in flight`), or `closed` the database under
 * it (the defect). The test then lets the party answer and reads what the pass recorded.
 */
export function watchClose(db: SqlDatabase, saying: (text: string) => unknown[]) {
  let closed = false;
  const close = db.close.bind(db);
  db.close = () => {
    closed = true;
    return close();
  };
  return {
    reached: async (): Promise<'waiting' | 'closed'> => {
      for (;;) {
        if (saying('in flight to finish').length) return 'waiting';
        if (closed) return 'closed';
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
}
