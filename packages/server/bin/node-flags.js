// The V8 flags `svc-server start` runs with, and the one relaunch that gives them to a server
// started without them. Plain JavaScript beside the bin: it runs before the build is loaded,
// so a relaunching parent holds only this file, not the services' code.
//
// Why a flag at all: a busy server's RSS is mostly V8's garbage headroom, not data (see
// docs/benchmarks.md, "Scale: what the memory goes to"). The young generation is two semi-spaces
// that grow with the allocation rate to 16 MB each on Node 20 and to 64 MB each on Node 24, so 16
// busy connections took the server past 200 MB. Capping a semi-space at 8 MB keeps the young
// generation at 16 MB for no measurable CPU (docs/benchmarks.md, sixth pass). V8 reads the cap
// once, when the heap is made: `v8.setFlagsFromString` at run time changes nothing (measured on
// Node 20 and 24), so the flag has to be on node's command line or in NODE_OPTIONS.
import { spawn } from 'node:child_process';

/** What the server runs with unless the person chose otherwise. */
export const NODE_FLAGS = ['--max-semi-space-size=8'];

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
 * Runs `script args` again in a node with the missing flags, and never returns then; resolves to
 * false when there is nothing to add (the caller carries on in this process).
 *
 * Where node has `process.execve` (22.15+, 24; not Windows) the process replaces itself: same
 * pid, nothing left behind, so systemd, Docker and `kill` see the server itself. On Node 20 a
 * child runs the server with stdin, stdout and stderr inherited; this parent only forwards the
 * stop signals and then exits as the child did (its exit code, or the same signal), so a
 * supervisor sees the server's own ending.
 */
export async function relaunchWithNodeFlags(script, args, env = process.env) {
  if (env[RELAUNCHED]) return false;
  const flags = missingNodeFlags(process.execArgv, env.NODE_OPTIONS);
  if (flags.length === 0) return false;
  const argv = [...flags, ...process.execArgv, script, ...args];
  const childEnv = { ...env, [RELAUNCHED]: '1' };
  if (typeof process.execve === 'function' && process.platform !== 'win32') {
    process.execve(process.execPath, [process.execPath, ...argv], childEnv);
  }
  const child = spawn(process.execPath, argv, { stdio: 'inherit', env: childEnv });
  // A terminal's Ctrl-C reaches both (one process group); the server ignores a second stop.
  const forward = (signal) => child.kill(signal);
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, forward);
  // Under npm/npx the server stops when its parent goes (cli.ts, stopWhenOrphaned); its parent is
  // now this process, so this process watches for the same.
  const parent = process.ppid;
  const orphaned = env.npm_lifecycle_event
    ? setInterval(() => process.ppid !== parent && forward('SIGTERM'), 250).unref()
    : undefined;
  const [code, signal] = await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c, s) => resolve([c, s]));
  });
  for (const s of signals) process.off(s, forward);
  clearInterval(orphaned);
  if (signal) {
    process.kill(process.pid, signal);
    // A signal with a handler elsewhere in the process would not end it: end as a failure.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  process.exit(code ?? 1);
}
