export { createCommerceApp, openCommerceDatabase } from './commerce/app.js';
export { type Config, ConfigError, loadConfig, testConfig } from './config.js';
export { createContentApp, openContentDatabase } from './content/app.js';
export { type Clock, ManualClock, systemClock } from './platform/clock.js';
export { type Ids, randomIds, sequentialIds } from './platform/ids.js';
export { createLogger, silentLogger } from './platform/logger.js';
export { type Listening, listen, type ServiceDeps, type ServiceHandle } from './platform/service.js';
export { type RunningServices, type ServiceName, type StartOptions, startServices } from './server.js';
export { VERSION } from './version.js';
