import type { Server } from 'node:http';
import { type Config, testConfig } from '../../src/config.js';
import { guardContentRoutes } from '../../src/content/app.js';
import { contentAuthenticators } from '../../src/content/auth.js';
import { contentMigrations } from '../../src/content/db/migrations/index.js';
import {
  isMediaUploadRequest,
  type MediaContext,
  type MediaFetcher,
  type MediaLimits,
  mediaRoutes,
  mountMediaFiles,
} from '../../src/content/media/index.js';
import { ManualClock } from '../../src/platform/clock.js';
import type { SqlDatabase } from '../../src/platform/db/sql.js';
import { createHttpApp, finishHttpApp, mountRoutes } from '../../src/platform/http/index.js';
import { randomIds } from '../../src/platform/ids.js';
import { silentLogger } from '../../src/platform/logger.js';
import { openTestDatabase } from '../helpers/database.js';
import { removeTempDataDir, tempDataDir } from '../helpers/start.js';

/**
 * Until app.ts wires the media module in, this builds the content app the way
 * createContentApp does (same migrations, gate, CSRF guard, body parser and route kit) with
 * only the media routes, plus the two test seams: an injected fetcher and smaller caps.
 */
export interface MediaTestService {
  url: string;
  dataDir: string;
  config: Config;
  clock: ManualClock;
  db: SqlDatabase;
  ctx: MediaContext;
  addBrand(id: string): Promise<void>;
  close(): Promise<void>;
}

export async function startMediaService(
  opts: { mediaFetcher?: MediaFetcher; mediaLimits?: Partial<MediaLimits>; config?: Partial<Config> } = {},
): Promise<MediaTestService> {
  const dataDir = tempDataDir('svc-media-');
  const { config: overrides, ...seams } = opts;
  const config = testConfig({ dataDir, ...overrides });
  const clock = new ManualClock();
  const logger = silentLogger();
  const opened = await openTestDatabase('content', contentMigrations, dataDir);
  const db = opened.db;
  const ctx: MediaContext = { db, config, clock, ids: randomIds, logger, ...seams };

  const app = createHttpApp({
    logger,
    bodyLimitBytes: config.maxBodyBytes,
    isMultipartRoute: isMediaUploadRequest,
  });
  app.use(
    mountRoutes(guardContentRoutes(mediaRoutes(ctx), config), {
      authenticators: contentAuthenticators(),
      validateResponses: true,
    }),
  );
  mountMediaFiles(app, ctx);
  finishHttpApp(app, logger);

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    config,
    clock,
    db,
    ctx,
    addBrand: async (id) => {
      const at = clock.now().toISOString();
      await db.run('INSERT INTO brands (id, name, memory, created_at, updated_at) VALUES (?, ?, ?, ?, ?)', [
        id,
        `Brand ${id}`,
        '{}',
        at,
        at,
      ]);
    },
    close: async () => {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeIdleConnections();
      });
      await opened.close();
      removeTempDataDir(dataDir);
    },
  };
}
