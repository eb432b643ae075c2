import { hostname } from 'node:os';
import type { Ids } from './ids.js';

/**
 * The name an instance signs its leases and claims with: host, process id and a random part
 * (two services in one process are two instances). The host and pid let an instance that starts
 * after a crash on the same machine see that a lease's holder is gone (see `isGoneHere`) instead
 * of waiting for the lease to run out.
 */
export function instanceName(ids: Ids): string {
  return `${hostname()}/${process.pid}/${ids.make('inst')}`;
}

/**
 * True only when `owner` names a process on this machine that no longer exists (killed, crashed).
 * Anything else (another machine, a live process, a name we cannot read) is presumed alive: its
 * lease is waited out. A reused pid errs the same safe way.
 */
export function isGoneHere(owner: string): boolean {
  const [host, pid] = owner.split('/');
  if (host !== hostname() || !pid || !/^\d+$/.test(pid)) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
