import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createCommerceApp } from '../../src/commerce/app.js';
import { type Config, testConfig } from '../../src/config.js';
import { createContentApp } from '../../src/content/app.js';
import { ManualClock } from '../../src/platform/clock.js';
import { type Ids, randomIds } from '../../src/platform/ids.js';
import { type Logger, silentLogger } from '../../src/platform/logger.js';
import { type Listening, listen, type ServiceHandle } from '../../src/platform/service.js';
import {
  createTestPostgresDatabase,
  TEST_POOL_SIZE,
  type TestPostgresDatabase,
  testEngine,
} from './database.js';

export interface TestService {
  url: string;
  clock: ManualClock;
  handle: ServiceHandle;
  config: Config;
  dataDir: string;
  /** Stops the server and deletes its data directory (and its PostgreSQL database, if it made one). */
  close(): Promise<void>;
  /** Stops the server but keeps the data, then starts a new one on the same directory (restart tests). */
  restart(): Promise<TestService>;
  /** Stops the server and closes its database, keeping the data directory (for tools run on it). */
  stop(): Promise<void>;
}

/**
 * A fresh data directory shaped like the README's default, `./.data`: `<temp>/.data`. Tests run
 * under a dot-folder so anything that refuses dot-folders in a path (as the media file sender
 * once did) fails here, not only for users. Remove it with removeTempDataDir.
 */
export function tempDataDir(prefix: string): string {
  const dir = join(mkdtempSync(join(tmpdir(), prefix)), '.data');
  mkdirSync(dir);
  return dir;
}

/** Removes a data directory, and the temporary folder around it when tempDataDir made it. */
export function removeTempDataDir(dataDir: string): void {
  rmSync(basename(dataDir) === '.data' ? dirname(dataDir) : dataDir, { recursive: true, force: true });
}

/**
 * A real service on a random loopback port and a fresh temporary data directory, with a
 * manual clock. Every integration test talks to it over HTTP.
 *
 * The database is on the test engine (SVC_TEST_DATABASE): SQLite in the data directory, or a
 * fresh PostgreSQL database that close() drops. A service given `config.databaseUrl` (a second
 * instance on the first one's database) uses it and leaves dropping it to its owner.
 */
export async function startTestService(
  name: 'content' | 'commerce',
  opts: {
    config?: Partial<Config>;
    clock?: ManualClock;
    dataDir?: string;
    background?: boolean;
    /** Predictable ids (`sequentialIds()`) make simulated metrics, which follow from ids, the same every run. */
    ids?: Ids;
    /** Where the service logs (silent by default); a test that checks what is logged passes its own. */
    logger?: Logger;
    /** The PostgreSQL database this service owns (drops on close); restart() hands it on. */
    ownedDatabase?: TestPostgresDatabase;
    /** SQLite in the data directory whatever the test engine: a deployment that tools then move. */
    sqlite?: boolean;
    /** How often the commerce dispatcher polls once `background` starts it (default: the service's). */
    webhookPollMs?: number;
    /** The token refresh and media edit leases' length (content), so a test outlives one in seconds. */
    workLeaseMs?: number;
  } = {},
): Promise<TestService> {
  const dataDir = opts.dataDir ?? tempDataDir(`svc-${name}-`);
  const owned =
    opts.ownedDatabase ??
    (testEngine === 'postgres' && !opts.sqlite && !opts.config?.databaseUrl
      ? await createTestPostgresDatabase()
      : undefined);
  const config = testConfig({
    dataDir,
    databasePoolSize: TEST_POOL_SIZE,
    ...(owned ? { databaseUrl: owned.url } : {}),
    ...opts.config,
  });
  const clock = opts.clock ?? new ManualClock();
  const deps = {
    config,
    clock,
    ids: opts.ids ?? randomIds,
    logger: opts.logger ?? silentLogger(),
    ...(opts.webhookPollMs ? { webhookPollMs: opts.webhookPollMs } : {}),
    ...(opts.workLeaseMs ? { workLeaseMs: opts.workLeaseMs } : {}),
  };
  let handle: ServiceHandle;
  try {
    handle = name === 'content' ? await createContentApp(deps) : await createCommerceApp(deps);
  } catch (err) {
    await owned?.drop();
    throw err;
  }
  const listening: Listening = await listen(handle, '127.0.0.1', 0);
  if (opts.background) handle.startBackground();
  return {
    url: listening.url,
    clock,
    handle,
    config,
    dataDir,
    close: async () => {
      const stopped = listening.stop();
      // A browser left open by a test may still hold a busy keep-alive connection, which would keep
      // close() waiting for it; at the end of a test nothing is owed to a client, so cut them all.
      listening.server.closeAllConnections();
      await stopped;
      removeTempDataDir(dataDir);
      await owned?.drop();
    },
    restart: async () => {
      await listening.stop();
      return startTestService(name, { ...opts, clock, dataDir, ...(owned ? { ownedDatabase: owned } : {}) });
    },
    stop: () => listening.stop(),
  };
}

/**
 * Config for a second instance beside `first`: on PostgreSQL, `first`'s database (which `first`
 * drops on close); on SQLite nothing, as sharing the data directory shares the database.
 */
export const sameDatabase = (first: TestService): Partial<Config> =>
  first.config.databaseUrl ? { databaseUrl: first.config.databaseUrl } : {};

/** fetch + JSON with the headers our APIs expect. */
export async function api(
  base: string,
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...opts.headers,
    },
    ...(opts.body === undefined
      ? {}
      : { body: typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body) }),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // Non-JSON bodies stay as text so a test can assert on them.
  }
  return { status: res.status, body, headers: res.headers };
}
