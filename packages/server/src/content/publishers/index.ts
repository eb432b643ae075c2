import type { Config } from '../../config.js';
import { AppError } from '../../platform/errors.js';
import { SANDBOX } from '../domain.js';
import type { Publisher } from './types.js';

export type { Publisher, PublishRequest, PublishResult } from './types.js';

/** Nothing leaves the machine: the post gets a sandbox permalink that says so. */
const sandboxPublisher: Publisher = {
  kind: 'sandbox',
  assertCanPublish() {},
  async publish(req) {
    return {
      externalId: `sandbox-${req.postId}`,
      permalink: `${SANDBOX.permalinkBase}/${req.platform}/${encodeURIComponent(req.channelHandle)}/${req.postId}`,
    };
  },
};

const notConfigured = (platform: string) =>
  new AppError(
    501,
    'PUBLISHER_NOT_CONFIGURED',
    `Live mode has no publishing adapter for '${platform}' in this build, so nothing was published or scheduled. Run with SERVICE_MODE=sandbox to simulate publishing.`,
  );

/** Live mode without an adapter refuses to publish rather than pretend it did. */
const missingPublisher: Publisher = {
  kind: 'none',
  assertCanPublish(platform) {
    throw notConfigured(platform);
  },
  async publish(req) {
    throw notConfigured(req.platform);
  },
};

export function createPublisher(config: Pick<Config, 'mode'>): Publisher {
  return config.mode === 'sandbox' ? sandboxPublisher : missingPublisher;
}
