import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { binFiles, cli, printedUrl } from './helpers/cli.js';
import { testEngine } from './helpers/database.js';

const files = binFiles('svc-stderr-pipe-');
const { NODE_PATH: _, ...withoutNodePath } = process.env;

/**
 * `svc-server start 2>&1 | tee svc.log`, as people run it by hand. The logger looks at what
 * stderr is (a pipe here) with fstatSync; a plain call left that answer where Node's realpathSync
 * reads it back, and the PostgreSQL driver, imported after it from pnpm's symlinked layout, was
 * resolved at the link's path: the start failed with "Cannot find module 'pg-types'". On SQLite
 * the driver is imported before the logger runs, so this passes on both builds there.
 */
describe('svc-server start with stderr on a shell pipe', { timeout: 60_000 }, () => {
  let group: number | undefined;
  afterEach(() => {
    // The shell, the server and `cat` share one process group; end all three.
    if (group) process.kill(-group, 'SIGTERM');
    group = undefined;
  });

  it(`starts and answers /health (${testEngine})`, async () => {
    const child = spawn('sh', ['-c', '"$0" "$1" start 2>&1 | cat', process.execPath, cli], {
      // A log level that writes: a silent logger never looks at stderr. No NODE_PATH: pnpm and
      // npx set it to their hoisted folder, where `pg-types` is found even from the link's path,
      // which hid the failure from every test run through them.
      env: files.env({ LOG_LEVEL: 'info' }, withoutNodePath),
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    group = child.pid;
    const url = await printedUrl(child);
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
  });
});
