import { join } from 'node:path';
import { z } from 'zod';
import { openDatabase, type SqlDatabase } from '../platform/db/sqlite.js';
import {
  buildOpenApi,
  createHttpApp,
  finishHttpApp,
  localOnly,
  mountRoutes,
  sameOriginOnly,
} from '../platform/http/index.js';
import type { ServiceDeps, ServiceHandle } from '../platform/service.js';
import { VERSION } from '../version.js';
import { contentAuthenticators } from './auth.js';
import { contentMigrations } from './db/migrations/index.js';
import { defineRoute } from './route.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { healthRoutes } from './routes/health.js';
import { contentRegistry } from './schemas.js';

export const openContentDatabase = (dataDir: string): SqlDatabase =>
  openDatabase(join(dataDir, 'content.sqlite'), contentMigrations);

/** What stays reachable from a tunnel or public hostname while the local-only gate is on. */
export const isPublicContentPath = (path: string) =>
  path === '/health' || path === '/mcp' || path.startsWith('/media/') || path.startsWith('/oauth/');

/** Builds the content service (REST under /v1; MCP at /mcp). Listening is the caller's job. */
export function createContentApp(deps: ServiceDeps & { db?: SqlDatabase }): ServiceHandle {
  const db = deps.db ?? openContentDatabase(deps.config.dataDir);
  const routes = [...healthRoutes, ...apiKeyRoutes(db, deps)];

  const openapi = buildOpenApi(routes, {
    title: 'svc content-planning REST API',
    version: VERSION,
    description:
      'The REST API the web app uses. It answers only local requests unless SERVICE_PUBLIC_API=all. The MCP surface at /mcp is documented in docs/content/mcp.md.',
    registry: contentRegistry,
    securitySchemes: {},
    security: {},
  });
  const openapiRoute = defineRoute({
    method: 'get',
    path: '/v1/openapi.json',
    auth: 'person',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 document.',
    hidden: true,
    response: z.record(z.string(), z.unknown()),
    handler: () => openapi,
  });

  const app = createHttpApp({
    logger: deps.logger,
    bodyLimitBytes: deps.config.maxBodyBytes,
    early: [
      localOnly({ enabled: deps.config.localOnly, isPublicPath: isPublicContentPath }),
      sameOriginOnly({ appliesTo: (path) => path.startsWith('/v1/') }),
    ],
  });
  app.use(
    mountRoutes([...routes, openapiRoute], {
      authenticators: contentAuthenticators(),
      validateResponses: process.env.NODE_ENV !== 'production',
    }),
  );
  finishHttpApp(app, deps.logger);

  return {
    name: 'content',
    app,
    db,
    openapi,
    startBackground() {},
    async close() {
      db.close();
    },
  };
}
