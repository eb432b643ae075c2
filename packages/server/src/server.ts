import { createCommerceApp } from './commerce/app.js';
import type { Config } from './config.js';
import { createContentApp } from './content/app.js';
import { type Clock, systemClock } from './platform/clock.js';
import type { SqlDatabase } from './platform/db/sql.js';
import { type Ids, randomIds } from './platform/ids.js';
import { createLogger, type Logger } from './platform/logger.js';
import { type Listening, listen, type ServiceHandle } from './platform/service.js';

export type ServiceName = 'content' | 'commerce';

export interface StartOptions {
  config: Config;
  only?: ServiceName;
  clock?: Clock;
  ids?: Ids;
  logger?: Logger;
  /**
   * Databases already being opened (and migrated) for these services, which the services take
   * over: the CLI starts opening them before it loads the services' code (cli.ts, `start`). A
   * service without one opens its own.
   */
  databases?: Partial<Record<ServiceName, Promise<SqlDatabase>>>;
}

export interface RunningServices {
  services: { name: ServiceName; url: string; handle: ServiceHandle; listening: Listening }[];
  stop(): Promise<void>;
}

/** Starts one or both services on their ports, with their background workers. */
export async function startServices(opts: StartOptions): Promise<RunningServices> {
  const logger = opts.logger ?? createLogger({ level: opts.config.logLevel });
  const deps = { config: opts.config, clock: opts.clock ?? systemClock, ids: opts.ids ?? randomIds, logger };
  const wanted: ServiceName[] = opts.only ? [opts.only] : ['content', 'commerce'];

  // Both services are built at once: opening a database is mostly waiting on PostgreSQL (its
  // migrations on a first start), which overlaps with the other service's work instead of
  // adding to it. Listening stays in order.
  const built = await Promise.allSettled(
    wanted.map(async (name) => {
      const opened = opts.databases?.[name];
      const own = {
        ...deps,
        logger: logger.child({ service: name }),
        ...(opened ? { db: await opened } : {}),
      };
      return name === 'content' ? createContentApp(own) : createCommerceApp(own);
    }),
  );
  const failed = built.find((b) => b.status === 'rejected');
  if (failed) {
    await Promise.all(built.map((b) => (b.status === 'fulfilled' ? b.value.close() : undefined)));
    throw failed.reason;
  }
  const handles = built.map((b) => (b as PromiseFulfilledResult<ServiceHandle>).value);

  const services: RunningServices['services'] = [];
  try {
    for (const [i, name] of wanted.entries()) {
      const handle = handles[i] as ServiceHandle;
      const port = name === 'content' ? opts.config.content.port : opts.config.commerce.port;
      let listening: Listening;
      try {
        listening = await listen(handle, opts.config.host, port);
      } catch (err) {
        await handle.close();
        throw err;
      }
      handle.startBackground();
      services.push({ name, url: listening.url, handle, listening });
    }
  } catch (err) {
    await Promise.all(services.map((s) => s.listening.stop()));
    // The handles not yet listening were never handed to a Listening that would close them.
    await Promise.all(handles.slice(services.length + 1).map((h) => h.close()));
    throw err;
  }

  return {
    services,
    stop: async () => {
      await Promise.all(services.map((s) => s.listening.stop()));
    },
  };
}
