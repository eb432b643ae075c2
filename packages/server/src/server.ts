import { createCommerceApp } from './commerce/app.js';
import type { Config } from './config.js';
import { createContentApp } from './content/app.js';
import { type Clock, systemClock } from './platform/clock.js';
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

  const services: RunningServices['services'] = [];
  try {
    for (const name of wanted) {
      const handle =
        name === 'content'
          ? await createContentApp({ ...deps, logger: logger.child({ service: 'content' }) })
          : await createCommerceApp({ ...deps, logger: logger.child({ service: 'commerce' }) });
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
    throw err;
  }

  return {
    services,
    stop: async () => {
      await Promise.all(services.map((s) => s.listening.stop()));
    },
  };
}
