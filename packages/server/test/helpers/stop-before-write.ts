import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Catches one of several built servers at a chosen statement, on any machine: each server given
 * `env` loads stop-before-write.cjs, and the first of them to reach a statement matching
 * `statement` stops itself (SIGSTOP) just before it. A test that waited for a marker in the
 * database and then sent SIGSTOP raced the server: on a loaded machine it finished first.
 * `claimDir` holds the file that decides which server is the first (a test's data directory).
 */
export function stopBeforeWrite(claimDir: string, statement: RegExp) {
  return {
    env: {
      NODE_OPTIONS:
        `${process.env.NODE_OPTIONS ?? ''} --require ${join(import.meta.dirname, 'stop-before-write.cjs')}`.trim(),
      SVC_TEST_STOP_BEFORE: statement.source,
      SVC_TEST_STOP_CLAIM: join(claimDir, 'stop-before-write.claim'),
    },
    /** The child that stopped itself; rejects when every child has exited instead. */
    stopped: (children: ChildProcess[]) => firstStopped(children),
  };
}

/** Linux's process state: T once SIGSTOP has taken effect. */
const isStopped = (pid: number) => {
  try {
    // The state follows the command name, which is in parentheses and may hold spaces.
    return /\)\s+T\s/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

function firstStopped(children: ChildProcess[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const held = children.find((c) => c.pid !== undefined && c.exitCode === null && isStopped(c.pid));
      if (held) return resolve(held);
      if (children.every((c) => c.exitCode !== null || c.signalCode !== null))
        return reject(new Error('every server exited before one reached the statement it was to stop at'));
      setTimeout(look, 10);
    };
    look();
  });
}
