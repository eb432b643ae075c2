import { join } from 'node:path';
import { z } from 'zod';
import { openDatabase, type SqlDatabase } from '../platform/db/sqlite.js';
import { buildOpenApi, createHttpApp, finishHttpApp, mountRoutes } from '../platform/http/index.js';
import type { ServiceDeps, ServiceHandle } from '../platform/service.js';
import { VERSION } from '../version.js';
import { commerceAuthenticators } from './auth.js';
import { commerceMigrations } from './db/migrations.js';
import { defineRoute } from './route.js';
import { healthRoutes } from './routes/health.js';
import { commerceRegistry } from './schemas.js';

export const openCommerceDatabase = (dataDir: string): SqlDatabase =>
  openDatabase(join(dataDir, 'commerce.sqlite'), commerceMigrations);

/** Builds the commerce API. Listening is the caller's job, so tests and embedders can mount it anywhere. */
export function createCommerceApp(deps: ServiceDeps & { db?: SqlDatabase }): ServiceHandle {
  const db = deps.db ?? openCommerceDatabase(deps.config.dataDir);
  const routes = [...healthRoutes];

  const openapi = buildOpenApi(routes, {
    title: 'svc commerce API',
    version: VERSION,
    description: 'Buy from online stores on behalf of your users. See docs/commerce/ in the svc repository.',
    registry: commerceRegistry,
    securitySchemes: {
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'svc_test_... (sandbox) or svc_live_... (live)',
      },
      userToken: { type: 'apiKey', in: 'header', name: 'Service-User-Token' },
    },
    security: { none: [], key: [{ apiKey: [] }], user: [{ apiKey: [], userToken: [] }] },
  });
  const openapiRoute = defineRoute({
    method: 'get',
    path: '/v1/openapi.json',
    auth: 'none',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 document.',
    hidden: true,
    response: z.record(z.string(), z.unknown()),
    handler: () => openapi,
  });

  const app = createHttpApp({ logger: deps.logger, bodyLimitBytes: deps.config.maxBodyBytes });
  app.use(
    mountRoutes([...routes, openapiRoute], {
      authenticators: commerceAuthenticators(db, deps),
      validateResponses: process.env.NODE_ENV !== 'production',
    }),
  );
  finishHttpApp(app, deps.logger);

  return {
    name: 'commerce',
    app,
    db,
    openapi,
    startBackground() {},
    async close() {
      db.close();
    },
  };
}
