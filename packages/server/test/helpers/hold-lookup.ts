import { vi } from 'vitest';

/** A store that answers API keys by their hash (each service's `api_keys` store). */
interface KeyLookup {
  findActiveByHash(hash: string): Promise<unknown>;
}

/**
 * Holds every key lookup on `store` after it has read the row, until `release()`: the answer of a
 * read made before a revoke committed arrives after the revoke returned (a slow network, a busy
 * pool). `read` settles once the first lookup has read. Undone by `vi.restoreAllMocks()`.
 */
export function holdLookupAfterRead(store: KeyLookup): { read: Promise<void>; release: () => void } {
  const findActiveByHash = store.findActiveByHash.bind(store);
  let wasRead = () => {};
  const read = new Promise<void>((resolve) => {
    wasRead = resolve;
  });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  vi.spyOn(store, 'findActiveByHash').mockImplementation(async (hash) => {
    const row = await findActiveByHash(hash);
    wasRead();
    await released;
    return row;
  });
  return { read, release };
}
