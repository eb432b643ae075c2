export { type RelayConfig, RelayConfigError, relayConfig } from './config.js';
export { EXIT, type RelayIo, runRelay } from './relay.js';
export { sseData } from './sse.js';
