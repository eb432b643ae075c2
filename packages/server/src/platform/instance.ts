import { readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Ids } from './ids.js';

/**
 * Where this process's pids mean something: the host name and, on Linux, the pid namespace.
 * Two containers may share a host name (`hostname:` in a compose file, `--hostname`) while each
 * has its own pids; a pid read from the other one's lease says nothing about a process here. The
 * namespace's inode (`/proc/self/ns/pid`) tells them apart; where it cannot be read (not Linux),
 * the host name alone is used, as there are no pid namespaces to confuse.
 */
function pidSpace(): string {
  try {
    const ns = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return ns ? `${hostname()}#${ns}` : hostname();
  } catch {
    return hostname();
  }
}

/** Computed once: neither the host name nor the namespace of a running process is meant to change. */
const HERE = pidSpace();

/** The first part of every instance name made in this process (for tests that forge an owner from here). */
export const pidSpaceHere = (): string => HERE;

/**
 * The name an instance signs its leases and claims with: where its pid means something, the
 * process id and a random part (two services in one process are two instances). The first two
 * let an instance that starts after a crash on the same machine see that a lease's holder is gone
 * (see `isGoneHere`) instead of waiting for the lease to run out.
 */
export function instanceName(ids: Ids): string {
  return `${HERE}/${process.pid}/${ids.make('inst')}`;
}

/**
 * True only when `owner` names a process in this pid namespace on this machine that no longer
 * exists (killed, crashed). Anything else (another machine, another container, a live process, a
 * name we cannot read) is presumed alive: its lease is waited out. A reused pid errs the same
 * safe way. Taking over a live holder's claim would run its work twice, so every doubt waits.
 */
export function isGoneHere(owner: string): boolean {
  const [where, pid] = owner.split('/');
  if (where !== HERE || !pid || !/^\d+$/.test(pid)) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
