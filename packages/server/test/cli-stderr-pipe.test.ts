import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { binFiles, cli, printedUrl } from './helpers/cli.js';
import { testEngine } from './helpers/database.js';

const files = binFiles('svc-stderr-pipe-');
const { NODE_PATH: _, ...withoutNodePath } = process.env;
/** A preload that makes a plain fstatSync of stdout and stderr before each fstatSync (a dependency's tty check). */
const plainStatOfStdio = join(import.meta.dirname, 'fixtures/plain-stat-of-stdio.mjs');

/**
 * How people and process managers run the bin: `svc-server start 2>&1 | tee svc.log` (stdout and
 * stderr on one FIFO), or under a supervisor that reads both through sockets. A synchronous stat
 * of a FIFO or a socket leaves an answer where Node's realpathSync reads it back, and the
 * PostgreSQL driver, imported after it from pnpm's symlinked layout, was resolved at the link's
 * path: the start failed with "Cannot find module 'pg-types'". The logger's own stat no longer
 * does that, and the driver is loaded so that anyone else's stat (the preload) cannot either. On
 * SQLite the driver is never loaded, so these pass on every build there.
 *
 * No NODE_PATH: pnpm and npx set it to their hoisted folder, where `pg-types` is found even from
 * the link's path, which hid the failure from every test run through them. A log level that
 * writes: a silent logger never looks at stderr.
 */
describe('svc-server with stdout and stderr on pipes or sockets', { timeout: 60_000 }, () => {
  let group: number | undefined;
  afterEach(() => {
    // The shell, the server and `cat` share one process group; end all of them.
    try {
      if (group) process.kill(-group, 'SIGTERM');
    } catch {
      // The group has already exited (a command that ran to its end).
    }
    group = undefined;
  });

  /** The bin with `args`, stdout and stderr on one shell pipe (a FIFO) or on two sockets. */
  function run(args: string[], opts: { on: 'fifo' | 'sockets'; preload: boolean }) {
    const node = [...(opts.preload ? ['--import', plainStatOfStdio] : []), cli, ...args];
    const env = files.env({ LOG_LEVEL: 'info' }, withoutNodePath);
    const child =
      opts.on === 'fifo'
        ? spawn('sh', ['-c', '"$0" "$@" 2>&1 | cat', process.execPath, ...node], {
            env,
            detached: true,
            stdio: ['ignore', 'pipe', 'inherit'],
          })
        : spawn(process.execPath, node, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr?.resume();
    group = child.pid;
    return child;
  }

  for (const on of ['fifo', 'sockets'] as const) {
    for (const preload of [false, true]) {
      const name = `start answers /health, output on ${on}${preload ? ', after a plain stat of stdout and stderr' : ''} (${testEngine})`;
      it(name, async () => {
        const url = await printedUrl(run(['start'], { on, preload }));
        const health = await fetch(`${url}/health`);
        expect(health.status).toBe(200);
      });
    }
  }

  it(`keys create and list work with output on a shell pipe (${testEngine})`, async () => {
    const printed = async (args: string[]) => {
      const child = run(args, { on: 'fifo', preload: true });
      let out = '';
      child.stdout?.on('data', (c) => {
        out += c;
      });
      const code = await new Promise((resolve) => child.once('close', resolve));
      return { code, out };
    };
    const created = await printed([
      'keys',
      'create',
      '--service',
      'content',
      '--name',
      'piped',
      '--scopes',
      'read',
    ]);
    expect(created, created.out).toMatchObject({ code: 0 });
    const listed = await printed(['keys', 'list', '--service', 'content', '--json']);
    expect(listed.code, listed.out).toBe(0);
    expect(listed.out).toContain('"piped"');
  });
});
