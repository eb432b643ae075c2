export { accessLog } from './access-log.js';
export { apiReference } from './api-reference.js';
export {
  createHttpApp,
  createRouter,
  finishHttpApp,
  type HttpAppOptions,
  notUnder,
  ROUTER_OPTIONS,
} from './app.js';
export { jsonBody } from './body.js';
export { errorHandler, notFoundHandler, sendError } from './errors-middleware.js';
export {
  guardRoutes,
  isLocalRequest,
  type LocalTrustOptions,
  localTrustGuard,
  requireLocalTrust,
} from './local-only.js';
export {
  type Authenticators,
  type MountOptions,
  mountRoutes,
  type RouteResult,
  type RouteWrapper,
} from './mount.js';
export {
  buildOpenApi,
  lazyOpenApi,
  type OpenApiInfo,
  type OpenApiTag,
  openApiRoute,
  platformErrors,
  serviceServer,
} from './openapi.js';
export { REQUEST_ID_HEADER, requestId } from './request-id.js';
export {
  type AnyRoute,
  type HandlerInput,
  type HttpMethod,
  Reply,
  type RouteDef,
  reply,
  routeKit,
} from './route.js';
export { emptyBody, validate } from './validation.js';
