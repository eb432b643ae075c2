import { createRequire } from 'node:module';
import type pg from 'pg';
import { refillStatBuffer } from '../stat-buffer.js';

let driver: typeof pg | undefined;

/**
 * The `pg` driver, loaded in one synchronous step from a clean stat buffer.
 *
 * Why: Node's JS realpathSync, which every import goes through, reads back the buffer that the
 * last plain synchronous stat filled whenever a path part is already in its cache. If that stat
 * was of a FIFO or a socket (stderr on a pipe, journald's socket), it stops at the first part, and
 * a package in pnpm's symlinked layout is loaded from its link's path, where its own dependencies
 * are not found: starting on PostgreSQL failed with "Cannot find module 'pg-types'". Any code may
 * make that stat before the first pool opens: our logger (which uses the bigint variant to stay
 * out of it), pino, a dependency's tty check. So a plain stat of a regular file (see
 * stat-buffer.ts) overwrites the buffer right before the load, and `require` then
 * loads pg and all it requires with nothing in between. pgpass, which pg requires only when the
 * server asks for a password the URL does not hold (long after start), is loaded now for the
 * same reason.
 */
export function pgDriver(): typeof pg {
  if (driver) return driver;
  refillStatBuffer();
  const require = createRequire(import.meta.url);
  const loaded = require('pg') as typeof pg;
  createRequire(require.resolve('pg'))('pgpass');
  driver = loaded;
  return driver;
}
