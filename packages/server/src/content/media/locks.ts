/**
 * Serialises work per asset id within this process, so two focal-point changes (or a change
 * and a delete) cannot render over each other. The server is one process per data directory.
 */
export function assetLocks() {
  const locks = new Map<string, Promise<unknown>>();
  return async <T>(id: string, fn: () => Promise<T>): Promise<T> => {
    const prev = locks.get(id) ?? Promise.resolve();
    const run = prev.catch(() => {}).then(fn);
    locks.set(id, run);
    try {
      return await run;
    } finally {
      if (locks.get(id) === run) locks.delete(id);
    }
  };
}
