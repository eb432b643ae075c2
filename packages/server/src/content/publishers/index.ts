import type { Config } from '../../config.js';
import type { ContentContext } from '../context.js';
import { SANDBOX } from '../domain.js';
import { livePublisher } from './live-publisher.js';
import type { Publisher } from './types.js';

export { PublishError, type Publisher, type PublishRequest, type PublishResult } from './types.js';

/** Nothing leaves the machine: the post gets a sandbox permalink that says so. */
const sandboxPublisher: Publisher = {
  kind: 'sandbox',
  assertCanPublish() {},
  async publish(req) {
    const externalId = `sandbox-${req.postId}`;
    return {
      externalId,
      externalIds: [externalId],
      permalink: `${SANDBOX.permalinkBase}/${req.platform}/${encodeURIComponent(req.channelHandle)}/${req.postId}`,
    };
  },
};

/** Live mode publishes through each platform's provider; an unconfigured platform answers 501. */
export function createPublisher(config: Pick<Config, 'mode'>, getCtx: () => ContentContext): Publisher {
  return config.mode === 'sandbox' ? sandboxPublisher : livePublisher(getCtx);
}
