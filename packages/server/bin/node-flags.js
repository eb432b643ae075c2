// The V8 flags `svc-server start` runs with, and the one relaunch that gives them to a server
// started without them. Plain JavaScript beside the bin: it runs before the build is loaded,
// so a relaunching parent holds only this file, not the services' code.
//
// Why a flag at all: a busy server's RSS is mostly V8's garbage headroom, not data (see
// docs/benchmarks/history.md, "Scale: what the memory goes to"). The young generation is two semi-spaces
// that grow with the allocation rate to 16 MB each on Node 20 and to 64 MB each on Node 24, so 16
// busy connections took the server past 200 MB. Capping a semi-space at 16 MB keeps the young
// generation at 32 MB: the sixth pass chose 8 MB, but once express's per-request garbage was gone
// (seventh pass) 8 MB made PostgreSQL's first page of posts promote ~50 KB a request and peak at
// 195-207 MB, where 16 MB gave 150-162 MB on PostgreSQL and 138 MB on SQLite (docs/benchmarks/history.md,
// "Issue 20, seventh pass: memory"). On Node 20 that is V8's own maximum; on Node 24, whose young
// generation grows to 128 MB, it is the cap that matters. V8 reads the cap
// once, when the heap is made: `v8.setFlagsFromString` at run time changes nothing (measured on
// Node 20 and 24), so the flag has to be on node's command line or in NODE_OPTIONS.
import { accessSync, constants } from 'node:fs';

/** What the server runs with unless the person chose otherwise. */
export const NODE_FLAGS = ['--max-semi-space-size=16'];

/**
 * Set in the relaunched server's environment. Guards against a loop (the child never relaunches,
 * whatever its flags), and a person may set it to run with Node's own defaults.
 */
export const RELAUNCHED = 'SVC_SERVER_NODE_FLAGS_APPLIED';

const nameOf = (flag) => flag.split('=')[0].replaceAll('_', '-');

/**
 * The flags of NODE_FLAGS that neither node's command line nor NODE_OPTIONS already names, with
 * any value: a flag the person gave, whatever its value, is theirs and stays.
 */
export function missingNodeFlags(execArgv, nodeOptions = '') {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter(Boolean).map(nameOf));
  return NODE_FLAGS.filter((f) => !given.has(nameOf(f)));
}

/**
 * Replaces this process with `node <flags> script args` and never returns then; resolves to
 * false when there is nothing to add, or when node cannot replace itself (the caller carries on
 * in this process, with Node's defaults).
 *
 * Only `process.execve` (Node 22.15+ and 24, not Windows) is used: same pid, nothing left
 * behind, so systemd, Docker and `kill` see the server itself. Without it a relaunch would have
 * to keep the bin as a parent of the server: node started twice, a signal-forwarding supervisor,
 * and about 7.5 MB of the parent's own memory, to save at most 16 MB (Node 20's young generation
 * stops at 32 MB; Node 24's grows to 128 MB, where the flag matters most). On Node 20 the flag comes from the launcher instead: `npm start` passes it and the
 * systemd unit sets NODE_OPTIONS (docs/operations.md, "Memory").
 */
export async function relaunchWithNodeFlags(script, args, env = process.env) {
  if (env[RELAUNCHED]) return false;
  if (typeof process.execve !== 'function' || process.platform === 'win32') return false;
  const flags = missingNodeFlags(process.execArgv, env.NODE_OPTIONS);
  if (flags.length === 0) return false;
  // A failed execve does not throw: node aborts (SIGABRT, a core dump, no server). So what can be
  // checked first is: the binary this process runs from may be gone (node upgraded or uninstalled
  // under a running shell: ENOENT) or not executable (EACCES, a noexec mount). Then the server
  // carries on here with Node's defaults, and says how to get the flag. What cannot be checked
  // (EPERM from a sandbox's syscall filter, say) still aborts; RELAUNCHED=1 skips the restart.
  const cannot = unreplaceable(process.execPath);
  if (cannot) {
    warnNotRelaunched(flags, cannot);
    return false;
  }
  const argv = [...flags, ...process.execArgv, script, ...args];
  try {
    process.execve(process.execPath, [process.execPath, ...argv], { ...env, [RELAUNCHED]: '1' });
  } catch (error) {
    // Only what node checks before calling execve throws (an argument it refuses, a platform
    // without it); carry on the same way.
    warnNotRelaunched(flags, error instanceof Error ? error.message : String(error));
  }
  return false;
}

/** Why `path` cannot be executed, or null when it can. */
function unreplaceable(path) {
  try {
    accessSync(path, constants.X_OK);
    return null;
  } catch (error) {
    return `${error.code ?? 'error'}: ${path}`;
  }
}

function warnNotRelaunched(flags, why) {
  process.stderr.write(
    `svc-server: could not restart node with ${flags.join(' ')} (${why}); running with Node's defaults, ` +
      `so the server may use more memory. To set it yourself: NODE_OPTIONS="${flags.join(' ')}" svc-server start ` +
      `(or ${RELAUNCHED}=1 to skip the restart and this message).\n`,
  );
}
