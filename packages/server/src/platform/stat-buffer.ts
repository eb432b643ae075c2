import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Leaves a plain stat of a regular file in the buffer Node's JS realpathSync reads back, before a
 * module is loaded after other code ran. Why: realpathSync, which every import goes through,
 * reads that buffer whenever a path part is already in its cache. If the last plain synchronous
 * stat was of a FIFO or a socket (stderr on a pipe, journald's socket: a logger's or a
 * dependency's tty check), it stops at the first part, and a package in pnpm's symlinked layout is
 * loaded from its link's path, where its own dependencies are not found ("Cannot find module
 * 'pg-types'", test/cli-stderr-pipe.test.ts). Imports resolved before any code runs never meet it.
 *
 * The file is this module's own (it is running), else node's binary. Not node's binary first: an
 * upgrade or uninstall under a running server removes it, and a stat that throws fills no buffer
 * (a start then failed on ENOENT, test/node-flags.test.ts).
 */
export function refillStatBuffer(): void {
  for (const path of [fileURLToPath(import.meta.url), process.execPath]) {
    try {
      if (statSync(path).isFile()) return;
    } catch {
      // Gone or unreadable: try the next one.
    }
  }
}
