import { existsSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { type BuiltServer, killHard, startBuilt } from './built-server.js';
import { binFiles, cli } from './cli.js';
import type { TestService } from './start.js';

const FAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

/** A process whose wall clock is `offset` (faketime's "-90s") away from the machine's; its monotonic clock is left alone. */
export const skewed = (offset: string) => ({
  LD_PRELOAD: FAKETIME,
  FAKETIME: offset,
  FAKETIME_DONT_FAKE_MONOTONIC: '1',
});

/** A built server where a helper wants a started service: only its URL is read. */
export const asService = (server: BuiltServer) => ({ url: server.url }) as TestService;

/**
 * Two processes of the built server (`service` in each) on one database, as on two machines: A on
 * the machine's clock, B's wall clock `offset` away (90 s behind by default: an unsynchronised
 * host; '+0s' for two processes of one machine, as a shared SQLite file has). Started before the
 * calling file's tests, on `binFiles(prefix)` (give the prefix a dot-folder's dot), and killed
 * after them, resumed first in case a test left one paused (SIGSTOP). Read `a` and `b` inside a
 * test; `files` starts other processes (a CLI) on the same database.
 */
export function skewedBuiltPair(service: 'content' | 'commerce', prefix: string, offset = '-90s') {
  const files = binFiles(prefix);
  let a: BuiltServer | undefined;
  let b: BuiltServer | undefined;
  beforeAll(async () => {
    if (!existsSync(cli))
      throw new Error(`${cli} is missing: build first (pnpm --filter @svc/server build).`);
    if (!existsSync(FAKETIME)) throw new Error(`${FAKETIME} is missing: apt-get install faketime.`);
    a = await startBuilt(service, files.env());
    b = await startBuilt(service, files.env(skewed(offset)));
  });
  afterAll(async () => {
    for (const server of [a, b]) server?.child.kill('SIGCONT');
    await Promise.all([a && killHard(a), b && killHard(b)]);
  });
  const started = (server: BuiltServer | undefined) => {
    if (!server) throw new Error('skewedBuiltPair: the servers start in beforeAll; use them inside a test.');
    return server;
  };
  return {
    files,
    get a() {
      return started(a);
    },
    get b() {
      return started(b);
    },
  };
}
